/** What starting an automation execution takes and gives (engine/start.ts, engine/rows.ts, the intake). */
import { type ExecutionStatus } from '../automation.entity';
import { type Context, type GraphSnapshot, type StartPoint } from './types.pure';

export interface StartRequest {
  workspaceId: string;
  automationId: string;
  triggerType: string;
  /** Dedupe key: outbox event id, webhook delivery id, `tick:<time>`, `api:<id>`, fan-out key. */
  triggerKey: string;
  entityType?: string | null;
  entityId?: string | null;
  context: Context;
  isTest?: boolean;
  /** Fan-out children: the parent's run, graph snapshot and the lookup node they continue behind. */
  parentExecutionId?: string | null;
  graph?: GraphSnapshot;
  startAt?: StartPoint | null;
  /** Automations whose runs caused this start (loop guard), without this one. */
  chain?: string[];
  /**
   * Callers that retry (outbox, activities) keep the row running when Temporal refuses the start
   * and rethrow, so the retry starts the same row; the API marks it failed and answers 503.
   */
  retryable?: boolean;
  now?: Date;
}

export interface StartedExecution {
  _id: string;
  workflowId: string;
  status: ExecutionStatus;
}

export type StartResult =
  { status: 'started' | 'existing'; execution: StartedExecution } | { status: 'skipped'; reason: string };
