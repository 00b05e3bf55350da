/**
 * Step log and execution status writes. A node's step row is unique per (execution, node): the
 * activity that runs the node locks it in the same transaction as the node's effect, so a
 * retried or replayed step finds `completed` and returns the stored output instead of acting again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../../platform/ids';
import { AutomationExecution, AutomationStep, type ExecutionStatus, type StepStatus } from '../automation.entity';
import type { WorkflowStep } from './types.pure';

export interface StepKey {
  workspaceId: string;
  executionId: string;
  nodeId: string;
  nodeType: string;
  actionType?: string | null;
}

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/**
 * A new step row's first eight values: id, workspace_id, created_at, updated_at, execution_id, node_id, node_type,
 * action_type (both inserts below list those columns first).
 */
const keyColumns = (key: StepKey, now: Date): unknown[] => [
  newId(now),
  key.workspaceId,
  now,
  now,
  key.executionId,
  key.nodeId,
  key.nodeType,
  key.actionType ?? null,
];

/**
 * Creates the row if needed and locks it until the caller's transaction ends, in one statement:
 * `on conflict do update` takes the row lock on an existing row and returns it either way.
 */
export async function lockStep(
  em: EntityManager,
  key: StepKey,
  attempt: number,
  now = new Date(),
): Promise<AutomationStep> {
  const rows = await em.execute<Record<string, unknown>[]>(
    `insert into automation_step (id, workspace_id, created_at, updated_at, execution_id, node_id, node_type, action_type, status, attempt, started_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)
     on conflict (execution_id, node_id) do update set updated_at = automation_step.updated_at
     returning *`,
    [...keyColumns(key, now), attempt, now],
  );
  return em.map(AutomationStep, rows[0]!);
}

/** The stored step, read without a lock (fast path for replays). */
export function findStep(em: EntityManager, executionId: string, nodeId: string): Promise<AutomationStep | null> {
  return em.findOne(AutomationStep, { executionId, nodeId }, { refresh: true });
}

export const isDone = (s: AutomationStep | null | undefined): s is AutomationStep =>
  s?.status === 'completed' || s?.status === 'skipped';

/** Upserts a finished step; a completed row is never overwritten (the effect happened). */
export async function writeStep(
  em: EntityManager,
  key: StepKey,
  step: {
    status: StepStatus;
    attempt: number;
    startedAt: Date;
    endedAt: Date | null;
    input?: unknown;
    output?: unknown;
    error?: string | null;
    handle?: string | null;
  },
  mode: 'overwrite' | 'if_missing' = 'overwrite',
): Promise<void> {
  const now = new Date();
  const conflict =
    mode === 'if_missing'
      ? 'do nothing'
      : `do update set status = excluded.status, attempt = excluded.attempt, ended_at = excluded.ended_at, input = coalesce(excluded.input, automation_step.input),
         output = excluded.output, error = excluded.error, handle = excluded.handle, updated_at = excluded.updated_at
         where automation_step.status not in ('completed', 'skipped') or excluded.status in ('completed', 'skipped')`;
  await em.execute(
    `insert into automation_step (id, workspace_id, created_at, updated_at, execution_id, node_id, node_type, action_type, status, attempt, started_at, ended_at, input, output, error, handle)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?) on conflict (execution_id, node_id) ${conflict}`,
    [
      ...keyColumns(key, now),
      step.status,
      step.attempt,
      step.startedAt,
      step.endedAt,
      json(step.input),
      json(step.output),
      step.error ?? null,
      step.handle ?? null,
    ],
  );
}

/** Steps decided inside the workflow (trigger, condition, delay) and action failures it had to record itself. */
export async function writeWorkflowSteps(
  em: EntityManager,
  workspaceId: string,
  executionId: string,
  steps: readonly WorkflowStep[],
): Promise<void> {
  for (const s of steps) {
    await writeStep(
      em,
      { workspaceId, executionId, nodeId: s.nodeId, nodeType: s.nodeType, actionType: s.actionType ?? null },
      {
        status: s.status,
        attempt: 1,
        startedAt: new Date(s.startedAt),
        endedAt: s.endedAt ? new Date(s.endedAt) : null,
        input: s.input,
        output: s.output,
        error: s.error ?? null,
        handle: s.handle ?? null,
      },
      s.onlyIfMissing ? 'if_missing' : 'overwrite',
    );
  }
}

/** Final status; only a queued or running execution changes (a cancel recorded by the API stays cancelled). */
export async function finishExecutionRow(
  em: EntityManager,
  executionId: string,
  status: Exclude<ExecutionStatus, 'running'>,
  error: string | null,
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update automation_execution set status = ?, error = ?, finished_at = now(), updated_at = now(),
       duration_ms = least(2147483647, (extract(epoch from (now() - started_at)) * 1000)::bigint)
     where id = ? and status in ('queued', 'running') returning id`,
    [status, error ? error.slice(0, 4000) : null, executionId],
  );
  return rows.length > 0;
}

/** The execution row as the API shows it, with its steps in run order. */
export async function executionWithSteps(
  em: EntityManager,
  executionId: string,
): Promise<{ execution: AutomationExecution; steps: AutomationStep[] } | null> {
  const execution = await em.findOne(AutomationExecution, { _id: executionId });
  if (!execution) return null;
  const steps = await em.find(AutomationStep, { executionId }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
  return { execution, steps };
}
