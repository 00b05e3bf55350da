import type { Ctx } from '../../platform/context';
import { findSyncPage } from '../../platform/shared/record-service';
import { validation } from '../../platform/errors';
import { emitCreate } from '../../platform/shared/changes';
import { dateWhere, likeAny, type PageRequest } from '../../platform/shared/listing';
import { createRecord } from '../../platform/shared/records';
import { Activity } from './activity.entity';
import { assertRefs, assertUsers, linkColumns } from './references';
import { serializeActivity } from './timeline.service';
import type { ActivityInput, ActivityView } from './timeline.schemas';
import { getRecord } from '../../platform/shared/record-service';

export const ACTIVITY_SUMMARY_FIELDS = [
  'type',
  'summary',
  'title',
  'date',
  'companyId',
  'personId',
  'dealId',
  'leadId',
  'ownerId',
] as const;

export async function getActivity(ctx: Ctx, id: string): Promise<ActivityView> {
  const row = await getRecord(ctx, Activity, id, 'activity');
  return serializeActivity(row);
}

/**
 * A user activity (call, meeting, e-mail, …) on the timelines of the records it links.
 * entityType/entityId also fills the matching link column when that one is not given.
 */
export async function createActivity(ctx: Ctx, input: ActivityInput): Promise<ActivityView> {
  const links = {
    companyId: input.companyId ?? null,
    personId: input.personId ?? null,
    dealId: input.dealId ?? null,
    leadId: input.leadId ?? null,
  };
  if (input.entityType && input.entityId) {
    const column = linkColumns(input.entityType, input.entityId);
    for (const [key, value] of Object.entries(column) as [keyof typeof links, string][]) {
      if (links[key] && links[key] !== value)
        throw validation(`entityId: conflicts with ${key} ${links[key]}`, [
          { path: 'entityId', error: `conflicts with ${key}` },
        ]);
      links[key] = value;
    }
  }
  await assertRefs(ctx, [
    { field: 'companyId', kind: 'company', id: links.companyId },
    { field: 'personId', kind: 'person', id: links.personId },
    { field: 'dealId', kind: 'deal', id: links.dealId },
    { field: 'leadId', kind: 'lead', id: links.leadId },
  ]);
  // The notes module's Note, by ORM name: notes write their linked timeline rows (notes import the timeline).
  if (input.noteRef && !(await ctx.em.count<{ _id: string }>('Note', { _id: input.noteRef }))) {
    throw validation(`noteRef: no note with id ${input.noteRef}`, [{ path: 'noteRef', error: 'no such note' }]);
  }
  const ownerId = input.ownerId ?? ctx.actor.userId;
  await assertUsers(ctx, 'ownerId', [ownerId]);
  const row = createRecord(ctx, Activity, {
    type: input.type,
    system: false,
    summary: input.summary ?? null,
    description: input.description ?? null,
    ...links,
    entityType: input.entityType ?? null,
    entityId: input.entityId ?? null,
    noteRef: input.noteRef ?? null,
    callRef: null,
    taskRef: null,
    date: input.date ?? new Date(),
    metadata: input.metadata ?? {},
    userId: ctx.actor.userId,
    ownerId,
  });
  const view = serializeActivity(row);
  await emitCreate(ctx, row, { type: 'activity_created', entityType: 'activity', payload: { activity: view } });
  return view;
}

export interface ActivityListQuery extends PageRequest {
  type?: string;
  companyId?: string;
  personId?: string;
  dealId?: string;
  leadId?: string;
  ownerId?: string;
  q?: string;
  updatedSince?: Date;
  createdAfter?: Date;
  /** dateFrom/dateTo bound the activity's own `date`. */
  dateFrom?: Date;
  dateTo?: Date;
}

/** User activities of the workspace; system rows (record history) are in the per-record activity feeds only. */
export async function listActivities(ctx: Ctx, query: ActivityListQuery) {
  const where: Record<string, unknown> = { system: false };
  for (const key of ['type', 'companyId', 'personId', 'dealId', 'leadId', 'ownerId'] as const)
    if (query[key]) where[key] = query[key];
  const stamps = dateWhere({ updatedSince: query.updatedSince, createdAfter: query.createdAfter });
  Object.assign(where, stamps);
  const range = dateWhere({ dateFrom: query.dateFrom, dateTo: query.dateTo }).createdAt;
  if (range) where.date = { ...(range as object) };
  if (query.q) where.$or = likeAny(query.q, ['summary', 'description', 'type']);
  const { items, total } = await findSyncPage(ctx, Activity, where, query, 'date');
  return { items: items.map(serializeActivity), total };
}
