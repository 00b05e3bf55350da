/**
 * The automation execution workflow's contract (modules/automations/automation-execution.workflow.ts): its input;
 * it has no signals, updates or queries (a run is stopped by cancellation). Workflow-safe: types only.
 */
import type { Context, GraphSnapshot, StartPoint } from './engine/types.pure';

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
   * same value): 3 = also CRM-only actions (local-actions.pure.ts) as local activities; 2 = step-log writes as
   * local activities; absent = runs started before, which
   * replay them as regular activities. Raise it for the next change that needs a code path per
   * version; cheaper than `patched()`, which also upserts a search attribute on every run.
   */
  engineVersion?: number;
  /**
   * A retry from the failed step (engine/retry.ts): the nodes the retried run completed, with the branch each
   * took. Trigger, condition and delay nodes listed here are not decided again (no second wait; the recorded
   * branch is taken); listed action, lookup and ai nodes still call their activity, which finds the step row
   * copied from the retried run and returns its stored output without acting. Absent for every other run.
   */
  resume?: Record<string, string | null>;
}
