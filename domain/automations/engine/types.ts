/**
 * Shapes exchanged between the engine, the execution workflow and its activities. Types only
 * (plus constants), so the workflow bundle can `import type` them.
 */
import type { ExecutionSettings, GraphEdge, GraphNode, StepStatus } from '../automation.entity';

export type Context = Record<string, unknown>;

export interface GraphSnapshot {
  nodes: GraphNode[];
  edges: GraphEdge[];
  executionSettings: ExecutionSettings;
}

/** Where a fan-out child starts: the edges leaving `nodeId` through `handle` are taken. */
export interface StartPoint {
  nodeId: string;
  handle: string;
}

/** The execution workflow's one input: ids and snapshots, never entities (house rule 6). */
export interface ExecutionWorkflowInput {
  workspaceId: string;
  executionId: string;
  automationId: string;
  graph: GraphSnapshot;
  context: Context;
  isTest: boolean;
  /** The user actions act as (automation creator, else the workspace owner). */
  actorUserId: string;
  /** Workspace IANA zone: date conditions and formatting. */
  timezone: string;
  /** Automations whose executions led to this one (this one last): guards against trigger loops. */
  chain: string[];
  startAt?: StartPoint | null;
  /** Overrides the clock for date conditions (tests); default: workflow time. */
  now?: string;
  /** Overrides retryIntervalMinutes (tests only: the minimum setting is one minute). */
  retryIntervalMs?: number;
  /**
   * Workflow code version of the run, fixed at start (part of the recorded input, so replay sees the
   * same value): 2 = step-log writes as local activities; absent = runs started before, which
   * replay them as regular activities. Raise it for the next change that needs a code path per
   * version; cheaper than `patched()`, which also upserts a search attribute on every run.
   */
  engineVersion?: number;
}

/** What new runs are started with (see ExecutionWorkflowInput.engineVersion). */
export const ENGINE_VERSION = 2;

export interface ExecutionResult {
  status: 'completed' | 'failed';
  ran: string[];
  failedNodeId?: string;
  error?: string;
}

/** A step decided inside the workflow (trigger, condition, delay), written by finishExecution/recordSteps. */
export interface WorkflowStep {
  nodeId: string;
  nodeType: string;
  status: StepStatus;
  startedAt: string;
  endedAt: string | null;
  input?: unknown;
  output?: unknown;
  error?: string | null;
  handle?: string | null;
  /** Action steps the workflow records only when their activity could not (failed before writing). */
  onlyIfMissing?: boolean;
  actionType?: string | null;
}

/** What every node activity receives. */
export interface NodeActivityInput {
  workspaceId: string;
  executionId: string;
  automationId: string;
  nodeId: string;
  /** node.data (actions: actionType + config). */
  data: Record<string, unknown>;
  context: Context;
  isTest: boolean;
  actorUserId: string;
  timezone: string;
  chain: string[];
  failureBehavior: ExecutionSettings['failureBehavior'];
}

export interface NodeActivityResult {
  output: unknown;
  /** Keys merged into the context for later nodes (httpResponse, ai_text, lookup, …). */
  contextPatch?: Context;
  /** Branch for branching nodes (lookup found/empty/error, ai true/false); null = unconditional. */
  handle?: string | null;
  status: StepStatus;
}

export interface FinishExecutionInput {
  workspaceId: string;
  executionId: string;
  status: 'completed' | 'failed' | 'cancelled';
  error?: string | null;
  steps: WorkflowStep[];
}

export interface RecordStepsInput {
  workspaceId: string;
  executionId: string;
  steps: WorkflowStep[];
}

export interface ScheduledStartInput {
  workspaceId: string;
  automationId: string;
  /** ISO time of the schedule tick: the dedupe key of the start. */
  scheduledAt: string;
}

/** Error types the workflow and activities agree on (ApplicationFailure.type). */
export const FAILURE_TYPES = {
  /** A permanent action error: retrying cannot help (bad config, not available, not configured). */
  permanent: 'AutomationPermanentError',
  /** An action error under failureBehavior stop/continue: reported once, not retried. */
  actionFailed: 'AutomationActionFailed',
  /** The CRM's own database was unreachable: not the action's fault, retried under every failureBehavior. */
  infrastructure: 'AutomationInfrastructureError',
  nodeFailed: 'AutomationNodeFailed',
} as const;
