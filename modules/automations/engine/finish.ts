/**
 * The end of an execution in one statement: the steps the workflow decided itself (trigger,
 * conditions, delays, failures it recorded) upserted as writeStep does, and the final status as
 * finishExecutionRow sets it — atomic without a transaction (one round trip instead of begin, one
 * insert per step, the update and commit). Steps naming one node twice take the step-by-step path.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../../platform/ids';
import { executeLean } from '../../../platform/orm/lean';
import type { ExecutionStatus } from '../automation.entity';
import { finishExecutionRow, writeWorkflowSteps } from './steps';
import type { WorkflowStep } from './types.pure';

const STEP_COLUMNS = `id, workspace_id, created_at, updated_at, execution_id, node_id, node_type, action_type, status, attempt,
  started_at, ended_at, input, output, error, handle`;
const STEP_VALUES = `s.id, ?, ?::timestamptz, ?::timestamptz, ?, s.node_id, s.node_type, s.action_type, s.status, 1,
  s.started_at, s.ended_at, s.input::jsonb, s.output::jsonb, s.error, s.handle`;

const FINISH_SQL = `with s as (
  select * from jsonb_to_recordset(?::jsonb) as r(id varchar, node_id varchar, node_type varchar, action_type varchar,
    status varchar, started_at timestamptz, ended_at timestamptz, input text, output text, error text, handle varchar,
    only_if_missing boolean)),
overwrite as (
  insert into automation_step (${STEP_COLUMNS})
  select ${STEP_VALUES} from s where not s.only_if_missing
  on conflict (execution_id, node_id) do update set status = excluded.status, attempt = excluded.attempt,
    ended_at = excluded.ended_at, input = coalesce(excluded.input, automation_step.input), output = excluded.output,
    error = excluded.error, handle = excluded.handle, updated_at = excluded.updated_at
  where automation_step.status not in ('completed', 'skipped') or excluded.status in ('completed', 'skipped')),
missing as (
  insert into automation_step (${STEP_COLUMNS})
  select ${STEP_VALUES} from s where s.only_if_missing
  on conflict (execution_id, node_id) do nothing),
fin as (
  update automation_execution set status = ?, error = ?, finished_at = now(), updated_at = now(),
    duration_ms = least(2147483647, (extract(epoch from (now() - started_at)) * 1000)::bigint)
  where id = ? and workspace_id = ? and status in ('queued', 'running') returning id)
select count(*)::int as n from fin`;

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/** Writes the workflow's steps and the final status; true when the execution changed (it was queued or running). */
export async function finishExecutionWithSteps(
  em: EntityManager,
  input: {
    workspaceId: string;
    executionId: string;
    status: Exclude<ExecutionStatus, 'running'>;
    error: string | null;
    steps: readonly WorkflowStep[];
  },
): Promise<boolean> {
  const nodes = new Set(input.steps.map((s) => s.nodeId));
  if (nodes.size !== input.steps.length) {
    // Two writes of one node apply in order (a later one may not overwrite a completed step): step by step.
    return em.transactional(async (tem) => {
      await writeWorkflowSteps(tem, input.workspaceId, input.executionId, input.steps);
      return finishExecutionRow(tem, input.executionId, input.status, input.error);
    });
  }
  const now = new Date();
  const rows = input.steps.map((s) => ({
    id: newId(now),
    node_id: s.nodeId,
    node_type: s.nodeType,
    action_type: s.actionType ?? null,
    status: s.status,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    input: json(s.input),
    output: json(s.output),
    error: s.error ?? null,
    handle: s.handle ?? null,
    only_if_missing: Boolean(s.onlyIfMissing),
  }));
  const step = [input.workspaceId, now, now, input.executionId];
  const [res] = await executeLean<{ n: number }>(
    em,
    FINISH_SQL,
    [
      JSON.stringify(rows),
      ...step,
      ...step,
      input.status,
      input.error ? input.error.slice(0, 4000) : null,
      input.executionId,
      input.workspaceId,
    ],
    { prepare: true },
  );
  return (res?.n ?? 0) > 0;
}
