/**
 * Retrying a failed enrollment (POST /sequences/enrollments/:enrollmentId/retry): an enrollment that exited with
 * an error gets a new enrollment of the same entity (`retryOf` names the failed one, which keeps its status and
 * steps) whose walk begins at the failed node (`snapshot.resumeAt`): the steps before it are not run again, the
 * failed step and those after it run. It is a new workflow run (`sequence-enrollment:<workspace>:<new id>`):
 * enrollment workflow ids are never reused (REJECT_DUPLICATE). Like every enrollment it is committed `active` and
 * queued (`start_queued`), and the starter starts its workflow (start-queue.ts); the enrollment's snapshot (the
 * sequence as it was enrolled) is kept.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { notifyQueued, queuedRuns } from '../../platform/intake/queue-signal';
import { emit } from '../../platform/outbox/emit';
import { inTransaction } from '../../platform/shared/tx';
import { enrollmentEventPayload } from './exit-queued';
import { SequenceEnrollment, SequenceStep } from './sequence.entity';
import { enrollmentWorkflowId } from './workflow-ids';

export interface RetriedEnrollment {
  enrollmentId: string;
  workflowId: string;
  status: 'active';
  retryOf: string;
  /** The node the new enrollment begins at (the failed step). */
  resumeAt: string;
  existing: boolean;
}

/** The node a failed enrollment failed at: its failed step, else the node its error names, else its start. */
function failedNodeOf(e: SequenceEnrollment, steps: readonly SequenceStep[]): string | null {
  const ids = new Set(e.snapshot.nodes.map((n) => n.id));
  const failed = [...steps].reverse().find((s) => s.status === 'failed' && ids.has(s.nodeId));
  if (failed) return failed.nodeId;
  const named = e.error?.split(':')[0];
  if (named && ids.has(named)) return named;
  return e.snapshot.nodes.find((n) => n.type === 'start')?.id ?? null;
}

export async function retryEnrollment(ctx: Ctx, enrollmentId: string, requestKey?: string): Promise<RetriedEnrollment> {
  const ws = ctx.actor.workspaceId;
  const out = await inTransaction(ctx, async () => {
    const original = await ctx.em.findOne(SequenceEnrollment, { _id: enrollmentId }, { refresh: true });
    if (!original) throw notFound('enrollment');
    if (requestKey) {
      const again = await ctx.em.findOne(SequenceEnrollment, { retryOf: enrollmentId, requestKey });
      if (again) return { row: again, existing: true };
    }
    if (original.status !== 'exited' || original.exitReason !== 'error')
      throw new DomainError(
        'invalid_state',
        `enrollment is ${original.status}${original.exitReason ? ` (${original.exitReason})` : ''}; only enrollments that failed (exited with an error) can be retried`,
      );
    const running = await ctx.em.count(SequenceEnrollment, {
      retryOf: enrollmentId,
      status: { $in: ['active', 'paused'] },
    });
    if (running) throw new DomainError('conflict', 'a retry of this enrollment is still running');
    const steps = await ctx.em.find(SequenceStep, { enrollmentId }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
    const resumeAt = failedNodeOf(original, steps);
    if (!resumeAt) throw new DomainError('invalid_state', 'the enrollment has no node to resume at');
    const now = new Date();
    const id = newId(now);
    const snapshot = { ...original.snapshot, resumeAt };
    const inserted: { id: string }[] = await ctx.em.execute(
      `insert into sequence_enrollment (id, workspace_id, created_at, updated_at, sequence_id, sequence_name, entity_type,
         entity_id, person_id, links, exclusive, status, source, snapshot, workflow_id, enrolled_at, enrolled_by,
         unsubscribe_token, current_node_id, start_queued, request_key, retry_of)
       select ?, workspace_id, ?, ?, sequence_id, sequence_name, entity_type, entity_id, person_id, links, exclusive,
         'active', 'retry', ?::jsonb, ?, ?, ?, ?, ?, true, ?, id
       from sequence_enrollment where id = ? and workspace_id = ?
       on conflict do nothing returning id`,
      [
        id,
        now,
        now,
        JSON.stringify(snapshot),
        enrollmentWorkflowId(ws, id),
        now,
        ctx.actor.userId,
        randomBytes(24).toString('base64url'),
        resumeAt,
        requestKey ?? null,
        enrollmentId,
        ws,
      ],
    );
    if (!inserted.length)
      throw new DomainError(
        'conflict',
        'the entity has another active or paused enrollment in this sequence: unenroll it first, then retry',
      );
    await notifyQueued(ctx.em);
    const row = await ctx.em.findOneOrFail(SequenceEnrollment, { _id: id });
    emit(ctx, {
      type: 'sequence_enrolled',
      entityType: 'sequence_enrollment',
      entityId: id,
      payload: enrollmentEventPayload(row),
    });
    return { row, existing: false };
  });
  if (!out.existing) queuedRuns.emit('queued', ws);
  return {
    enrollmentId: out.row._id,
    workflowId: out.row.workflowId,
    status: 'active',
    retryOf: enrollmentId,
    resumeAt: out.row.snapshot.resumeAt ?? out.row.currentNodeId ?? '',
    existing: out.existing,
  };
}
