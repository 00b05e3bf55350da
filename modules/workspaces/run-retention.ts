/**
 * Run retention (issue 27): finished automation executions with their step logs, and finished
 * sequence enrollments with their steps, are deleted once older than their workspace's
 * `run_retention_days` (default 30; `crm workspace retention`). The worker's housekeeping runs it in
 * small batches: each batch claims its rows with `for update skip locked` (a row someone is writing
 * is left for the next run) and is its own short statement, so writes never wait on a long delete.
 * Running or queued executions, active or paused enrollments, and children of a run still going are
 * never deleted, however old.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, validation } from '../../platform/errors';
import { Workspace } from './workspace.entity';

export const DEFAULT_RUN_RETENTION_DAYS = 30;
export const MIN_RUN_RETENTION_DAYS = 1;
export const MAX_RUN_RETENTION_DAYS = 3650;

// One workspace at a time, its cutoff a parameter: the (workspace_id, finished_at) index finds exactly the
// rows past it, whatever the other workspaces keep.
const EXECUTIONS = `with doomed as (
  select e.id, e.workspace_id from automation_execution e
   where e.workspace_id = ? and e.finished_at < ?
     and e.status in ('completed', 'failed', 'cancelled')
     and (e.parent_execution_id is null or not exists (
       select 1 from automation_execution p where p.id = e.parent_execution_id and p.status in ('queued', 'running')))
   order by e.finished_at limit ?
   for update of e skip locked),
steps as (delete from automation_step s using doomed d where s.execution_id = d.id and s.workspace_id = d.workspace_id returning 1),
runs as (delete from automation_execution e using doomed d where e.id = d.id returning 1)
select (select count(*) from runs)::int as rows, (select count(*) from steps)::int as steps`;

const ENROLLMENTS = `with doomed as (
  select n.id, n.workspace_id from sequence_enrollment n
   where n.workspace_id = ? and n.finished_at < ?
     and n.status in ('completed', 'exited', 'switched')
   order by n.finished_at limit ?
   for update of n skip locked),
steps as (delete from sequence_step s using doomed d where s.enrollment_id = d.id and s.workspace_id = d.workspace_id returning 1),
runs as (delete from sequence_enrollment n using doomed d where n.id = d.id returning 1)
select (select count(*) from runs)::int as rows, (select count(*) from steps)::int as steps`;

export interface PrunedRuns {
  executions: number;
  executionSteps: number;
  enrollments: number;
  enrollmentSteps: number;
}

async function pruneInBatches(
  em: EntityManager,
  sql: string,
  scope: { workspaceId: string; cutoff: Date },
  batch: number,
  maxBatches: number,
): Promise<{ rows: number; steps: number }> {
  const total = { rows: 0, steps: 0 };
  for (let i = 0; i < maxBatches; i++) {
    const [res] = await em
      .getConnection()
      .execute<{ rows: number; steps: number }[]>(sql, [scope.workspaceId, scope.cutoff, batch]);
    total.rows += res?.rows ?? 0;
    total.steps += res?.steps ?? 0;
    if ((res?.rows ?? 0) < batch) break;
  }
  return total;
}

/**
 * One housekeeping pass over every workspace: batches of `batch` runs (each batch one statement),
 * at most `maxBatches` per workspace and kind, so a large backlog is worked off over several passes.
 */
export async function pruneFinishedRuns(
  em: EntityManager,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<PrunedRuns> {
  const batch = Math.max(1, Math.floor(opts.batch ?? 500));
  const maxBatches = Math.max(1, Math.floor(opts.maxBatches ?? 200));
  const out: PrunedRuns = { executions: 0, executionSteps: 0, enrollments: 0, enrollmentSteps: 0 };
  const workspaces = await em
    .getConnection()
    .execute<{ id: string; days: number }[]>(`select id, run_retention_days as days from workspace order by id`);
  for (const w of workspaces) {
    const days = Math.max(MIN_RUN_RETENTION_DAYS, w.days ?? DEFAULT_RUN_RETENTION_DAYS);
    const scope = { workspaceId: w.id, cutoff: new Date(Date.now() - days * 86_400_000) };
    const runs = await pruneInBatches(em, EXECUTIONS, scope, batch, maxBatches);
    const enrollments = await pruneInBatches(em, ENROLLMENTS, scope, batch, maxBatches);
    out.executions += runs.rows;
    out.executionSteps += runs.steps;
    out.enrollments += enrollments.rows;
    out.enrollmentSteps += enrollments.steps;
  }
  return out;
}

/** Operator setting (`crm workspace retention`): days finished runs of the workspace are kept. */
export async function setRunRetention(
  em: EntityManager,
  workspaceId: string,
  days: number,
): Promise<{ workspaceId: string; runRetentionDays: number }> {
  if (!Number.isInteger(days) || days < MIN_RUN_RETENTION_DAYS || days > MAX_RUN_RETENTION_DAYS)
    throw validation(`days must be an integer from ${MIN_RUN_RETENTION_DAYS} to ${MAX_RUN_RETENTION_DAYS}`);
  const workspace = await em.findOne(Workspace, { _id: workspaceId });
  if (!workspace) throw notFound('workspace');
  workspace.runRetentionDays = days;
  await em.flush();
  return { workspaceId, runRetentionDays: days };
}
