/**
 * Ending enrollments whose workflow has not started yet (start_queued): the row ends here, with its
 * event, in one transaction; the starter then starts nothing for it (start-queue.ts). Kept apart from
 * runs.ts and start-queue.ts, which both use it, so that neither imports the other for it.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { automationActor, automationActorId } from '../automations/index.actor';
import { emit } from '../../platform/outbox/emit';
import { SequenceEnrollment } from './sequence.entity';
import type { ExitReason } from './types';

export const enrollmentEventPayload = (e: {
  _id: string;
  sequenceId: string;
  entityType: string;
  entityId: string;
  status: string;
  exitReason?: string | null;
}) => ({
  enrollment: {
    _id: e._id,
    sequenceId: e.sequenceId,
    entityType: e.entityType,
    entityId: e.entityId,
    status: e.status,
    ...(e.exitReason ? { exitReason: e.exitReason } : {}),
  },
});

/**
 * Ends those of `ids` whose workflow has not started yet, as their workflow would (status exited,
 * the reason, the outbox event); answers the ids it ended. The others are left to their workflow.
 */
export async function exitQueued(
  em: EntityManager,
  ids: string[],
  reason: ExitReason,
  event: 'sequence_exited' | 'sequence_unenrolled' = 'sequence_exited',
  commandId?: string,
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  return em.transactional(async (tem) => {
    const rows = await tem.find(
      SequenceEnrollment,
      { _id: { $in: ids }, startQueued: true, status: 'active' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    for (const e of rows) {
      Object.assign(e, {
        status: 'exited',
        exitReason: reason,
        finishedAt: new Date(),
        nextActionAt: null,
        startQueued: false,
        startLeaseUntil: null,
        lastCommandId: commandId ?? null,
        updatedAt: new Date(),
      });
      const actor = automationActor(e.workspaceId, await automationActorId(tem, e.enrolledBy));
      emit(
        { em: tem, actor },
        { type: event, entityType: 'sequence_enrollment', entityId: e._id, payload: enrollmentEventPayload(e) },
      );
    }
    return new Set(rows.map((e) => e._id));
  });
}
