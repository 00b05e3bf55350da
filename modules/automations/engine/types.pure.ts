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

/** What new runs are started with (see ExecutionWorkflowInput.engineVersion, automation-execution.messages.ts). */
export const ENGINE_VERSION = 3;

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
  /**
   * When the activity answered (ISO). A local activity runs inside the workflow task, whose time stands still: the
   * workflow dates the steps it decides after one no earlier than this, so the step log keeps the order they ran in.
   */
  endedAt?: string;
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
