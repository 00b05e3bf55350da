import type { Ctx } from '../../platform/context';
import { createRecord } from '../../platform/shared/records';
import { Activity } from './activity.entity';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { activityLinkColumns } from './linked';
import type { ActivityView } from './timeline.schemas';

export type TimelineLink = Partial<Pick<Activity, 'companyId' | 'personId' | 'dealId' | 'leadId'>> & {
  entityType: string;
  entityId: string;
};

/** History row types written by this codebase; other slices may add their own (any string). */
export type SystemActivityType =
  | 'record_created'
  | 'record_updated'
  | 'record_deleted'
  | 'person_linked'
  | 'person_unlinked'
  | 'task_created'
  | 'task_completed'
  | (string & {});

/** Records a system row (created, field changes) on the record's activity feed, in the caller's flush. */
export function recordSystemActivity(
  ctx: Ctx,
  link: TimelineLink,
  type: SystemActivityType,
  summary: string,
  metadata: Record<string, unknown> = {},
  refs: { taskRef?: string } = {},
): void {
  ctx.em.persist(
    createRecord(ctx, Activity, {
      type,
      system: true,
      summary,
      description: null,
      ...activityLinkColumns(link),
      entityType: link.entityType,
      entityId: link.entityId,
      noteRef: null,
      callRef: null,
      taskRef: refs.taskRef ?? null,
      date: new Date(),
      metadata,
      userId: ctx.actor.userId,
      ownerId: ctx.actor.userId,
    }),
  );
}

export const ACTIVITY_KEYS = [
  '_id',
  'type',
  'system',
  'summary',
  'description',
  'companyId',
  'personId',
  'dealId',
  'leadId',
  'entityType',
  'entityId',
  'noteRef',
  'callRef',
  'taskRef',
  'date',
  'metadata',
  'userId',
  'ownerId',
  'createdAt',
  'updatedAt',
] as const;

/** `title` mirrors `summary`: create accepts either name (spec: "summary or title"). */
export const serializeActivity = (a: Activity): ActivityView => {
  const plain = plainOf(a, ACTIVITY_KEYS);
  return { ...plain, title: plain.summary };
};

/**
 * Timeline of one record, newest first. `feed` includes system rows (creation, field changes);
 * without it only user activities (calls, meetings, notes, …) are listed.
 */
export async function listTimeline(
  ctx: Ctx,
  link: Partial<Pick<Activity, 'companyId' | 'personId' | 'dealId' | 'leadId'>>,
  page: PageRequest,
  opts: { feed: boolean },
): Promise<{ items: ActivityView[]; total: number }> {
  const where: Record<string, unknown> = { ...link };
  if (!opts.feed) where.system = false;
  const { items, total } = await findPage(ctx.em, Activity, where, page, { date: 'desc' });
  return { items: items.map(serializeActivity), total };
}
