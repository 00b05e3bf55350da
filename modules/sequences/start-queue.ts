/**
 * Durable intake of enrollments. An enroll call commits its rows `active` with `start_queued` (and a
 * NOTIFY) and answers; the starter of the worker (platform/intake/starter.ts) claims them with this
 * queue, starts their workflows (deterministic ids: a repeat is `already_started`) and clears the
 * flag. Until then the enrollment is `active` with no workflow: an exit (unenroll, an exit condition,
 * unsubscribe, a restart) ends the row itself (exit-queued.ts); a pause answers 409 with Retry-After (runs.ts).
 */
import { queuedAdmission } from '../../platform/intake/admission';
import { fairClaim } from '../../platform/intake/fair-pick';
import type { StartQueue } from '../../platform/intake/starter';
import type { SequenceEngineDeps } from './ports';
import { startEnrollmentWorkflow, startRowOf, type EnrollmentDbRow } from './runs';
import type { ExitReason } from './types';

/** Enrollments per workspace waiting for their workflow before enroll calls answer 429. */
export const enrollmentAdmission = queuedAdmission({
  table: 'sequence_enrollment',
  queued: 'start_queued',
  what: 'enrollments',
});

type ClaimedEnrollment = EnrollmentDbRow & { workflow_id: string };

/** Claim (in turns per workspace, intake/fair-pick.ts) and lease. Bindings: the pick's, then the lease seconds. */
const claimSql = (pick: string): string => `${pick}
  update sequence_enrollment e set start_lease_until = now() + make_interval(secs => ?) from picked c where e.id = c.id
  returning e.id, e.workspace_id, e.sequence_id, e.sequence_name, e.entity_type, e.entity_id, e.snapshot, e.workflow_id`;

export function enrollmentStartQueue(deps: SequenceEngineDeps): StartQueue<ClaimedEnrollment> {
  const conn = () => deps.orm.em.getConnection();
  return {
    name: 'enrollment',
    claim: fairClaim(
      (sql, params) => conn().execute<ClaimedEnrollment[]>(sql, params),
      {
        table: 'sequence_enrollment',
        queued: 't.start_queued',
        claimable:
          "t.start_queued and t.status = 'active' and (t.start_lease_until is null or t.start_lease_until < now())",
      },
      claimSql,
    ),
    starter: () => ({
      async start(r) {
        const row = startRowOf(r);
        // insertEnrollments records the start node's step with every queued row.
        row.startRecorded = row.snapshot.nodes.some((n) => n.type === 'start');
        await startEnrollmentWorkflow(deps, row, { retryable: true });
      },
    }),
    async refused(r, reason) {
      await conn().execute(
        `update sequence_enrollment set status = 'exited', exit_reason = 'error', error = ?, finished_at = now(), next_action_at = null,
           start_queued = false, start_lease_until = null, updated_at = now() where id = ? and start_queued`,
        [reason, r.id],
      );
    },
    /** The started rows leave the queue; one that ended meanwhile (exitQueued) gets its workflow told. */
    async markStarted(rows, ids) {
      if (!ids.length) return;
      const flipped = await conn().execute<{ id: string }[]>(
        `update sequence_enrollment set start_queued = false, start_lease_until = null, updated_at = now()
          where id in (?) and start_queued returning id`,
        [ids],
      );
      if (flipped.length === ids.length) return;
      const done = new Set(flipped.map((f) => f.id));
      const ended = await conn().execute<{ id: string; workflow_id: string; exit_reason: string | null }[]>(
        `select id, workflow_id, exit_reason from sequence_enrollment where id in (?) and status = 'exited'`,
        [ids.filter((id) => !done.has(id))],
      );
      for (const e of ended)
        await deps.workflows.exit(e.workflow_id, (e.exit_reason ?? 'manual') as ExitReason).catch((err: unknown) => {
          deps.log.warn({ err, enrollmentId: e.id }, 'telling a started enrollment that it ended failed');
        });
    },
  };
}
