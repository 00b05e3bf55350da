/**
 * Enrollments whose workflow never started, from before the durable intake (rows still queued are
 * the starter's, start-queue.ts): an enroll call committed the rows first and started the workflows
 * after the commit, so a process that died in between left `active` rows nothing runs.
 * The row is written with created_at = updated_at, and every first act of a workflow (its first
 * step activity, a wait or send-window mirror, a stop) moves updated_at, so an active row older than
 * the grace period that nothing has touched since its insert is such an orphan (the start step row
 * is written with the enrollment, so "no step row yet" no longer tells); starting it again is
 * idempotent (same workflow id).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../platform/logger';
import type { SequenceEngineDeps } from './ports';
import { startEnrollmentWorkflow, startRowOf, type EnrollmentDbRow } from './runs';

/** Longer than an enroll call takes between its commit and its last start. */
export const ORPHAN_GRACE_MS = 60_000;
const BATCH = 200;

export async function reconcileEnrollments(
  deps: SequenceEngineDeps & { orm: MikroORM; log: Logger },
  opts: { graceMs?: number; workspaceIds?: string[] } = {},
): Promise<{ started: number; checked: number }> {
  const em = deps.orm.em.fork();
  const cutoff = new Date(Date.now() - (opts.graceMs ?? ORPHAN_GRACE_MS));
  // Across workspaces on purpose (the worker's housekeeping): each row names its own workspace.
  const rows: EnrollmentDbRow[] = await em.execute(
    `select e.id, e.workspace_id, e.sequence_id, e.sequence_name, e.entity_type, e.entity_id, e.snapshot from sequence_enrollment e
     where e.status = 'active' and e.created_at < ? ${opts.workspaceIds?.length ? `and e.workspace_id in (${opts.workspaceIds.map(() => '?').join(',')})` : ''}
       and e.updated_at = e.created_at and not e.start_queued
     order by e.created_at limit ${BATCH}`,
    [cutoff, ...(opts.workspaceIds ?? [])],
  );
  let started = 0;
  for (const r of rows) {
    const row = startRowOf(r);
    try {
      await startEnrollmentWorkflow(deps, row);
      started++;
      deps.log.warn(
        { enrollmentId: r.id, workspaceId: r.workspace_id },
        'sequence enrollment had no workflow: started it',
      );
    } catch (err) {
      deps.log.error(
        { err, enrollmentId: r.id },
        'sequence enrollment reconcile: start failed; the next round retries',
      );
    }
  }
  return { started, checked: rows.length };
}
