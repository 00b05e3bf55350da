/**
 * The rows of an enroll call (enroll.service.ts): inserted queued (`start_queued`, a NOTIFY on commit
 * for the starter, start-queue.ts) with their start step, in the call's transaction. An exclusive row
 * that loses to a running one (`sequence_enrollment_one_running`), or a row its request already made
 * (`request_key`, unique per entity), is not inserted: `on conflict do nothing`, never read-then-write.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../platform/context';
import { notifyQueued } from '../../platform/intake/queue-signal';
import type { EnrollmentStartRow } from './runs';
import type { EnrollmentLinks, EnrollmentSnapshot, Sequence } from './sequence.entity';
import { recordStartSteps } from './step-rows';

export async function insertEnrollments(
  ctx: Ctx,
  rows: { id: string; entityId: string; links: EnrollmentLinks; exclusive: boolean; workflowId: string }[],
  common: {
    sequence: Sequence;
    entityType: string;
    source: string;
    snapshot: EnrollmentSnapshot;
    now: Date;
    requestKey?: string;
  },
): Promise<EnrollmentStartRow[]> {
  if (!rows.length) return [];
  const cols = [
    'id',
    'workspace_id',
    'created_at',
    'updated_at',
    'sequence_id',
    'sequence_name',
    'entity_type',
    'entity_id',
    'person_id',
    'links',
    'exclusive',
    'status',
    'source',
    'snapshot',
    'workflow_id',
    'enrolled_at',
    'enrolled_by',
    'unsubscribe_token',
    'current_node_id',
    'start_queued',
    'request_key',
  ];
  // Every enrollment starts at its start node: recorded here, in the same transaction as the row,
  // so its workflow needs no bookkeeping round trip for it (input.startRecorded).
  const start = common.snapshot.nodes.find((n) => n.type === 'start');
  const params: unknown[] = [];
  const snapshotJson = JSON.stringify(common.snapshot);
  const values = rows.map((r) => {
    params.push(
      r.id,
      ctx.actor.workspaceId,
      common.now,
      common.now,
      common.sequence._id,
      common.sequence.name,
      common.entityType,
      r.entityId,
      r.links.personId ?? null,
      JSON.stringify(r.links),
      r.exclusive,
      'active',
      common.source,
      snapshotJson,
      r.workflowId,
      common.now,
      ctx.actor.userId,
      randomBytes(24).toString('base64url'),
      start?.id ?? null,
      true,
      common.requestKey ?? null,
    );
    return `(${cols.map(() => '?').join(',')})`;
  });
  const returned: { id: string }[] = await ctx.em.execute(
    `insert into sequence_enrollment (${cols.join(',')}) values ${values.join(',')}
     on conflict do nothing returning id`,
    params,
  );
  const ids = new Set(returned.map((r) => r.id));
  if (ids.size) await notifyQueued(ctx.em);
  if (start)
    await recordStartSteps(
      ctx.em,
      { workspaceId: ctx.actor.workspaceId, sequenceId: common.sequence._id, nodeId: start.id, at: common.now },
      [...ids],
    );
  return rows
    .filter((r) => ids.has(r.id))
    .map((r) => ({
      _id: r.id,
      workspaceId: ctx.actor.workspaceId,
      sequenceId: common.sequence._id,
      sequenceName: common.sequence.name,
      entityType: common.entityType,
      entityId: r.entityId,
      status: 'active' as const,
      snapshot: common.snapshot,
      workflowId: r.workflowId,
      startRecorded: start !== undefined,
    }));
}

/**
 * The rows an earlier run of the same request (same Idempotency-Key) made for these entities, with
 * the action it answered: a restart ended the entity's running row at the new row's enrolledAt.
 */
export async function requestedBefore(
  ctx: Ctx,
  sequenceId: string,
  requestKey: string,
  entityIds: string[],
): Promise<{ id: string; entityId: string; action: 'enrolled' | 'restarted' }[]> {
  if (!entityIds.length) return [];
  const rows: { id: string; entity_id: string; restarted: boolean }[] = await ctx.em.execute(
    `select e.id, e.entity_id, exists (select 1 from sequence_enrollment o where o.workspace_id = e.workspace_id
       and o.sequence_id = e.sequence_id and o.entity_type = e.entity_type and o.entity_id = e.entity_id
       and o.exit_reason = 'restarted' and o.finished_at = e.enrolled_at) as restarted
     from sequence_enrollment e
     where e.workspace_id = ? and e.request_key = ? and e.sequence_id = ? and e.entity_id in (${entityIds.map(() => '?').join(',')})`,
    [ctx.actor.workspaceId, requestKey, sequenceId, ...entityIds],
  );
  return rows.map((r) => ({ id: r.id, entityId: r.entity_id, action: r.restarted ? 'restarted' : 'enrolled' }));
}
