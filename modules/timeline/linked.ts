import type { Ctx } from '../../platform/context';
import { createRecord } from '../../platform/shared/records';
import { Activity } from './activity.entity';

/** The activity row that mirrors a note or a call on the timeline. */
export interface LinkedActivity {
  type: 'note' | 'call';
  summary: string;
  description: string | null;
  companyId?: string | null;
  personId?: string | null;
  leadId?: string | null;
  dealId?: string | null;
  entityType: string | null;
  entityId: string | null;
  date: Date;
  metadata: Record<string, unknown>;
  ownerId: string | null;
}

export type LinkedRef = { noteRef: string } | { callRef: string };

/** The four record links of an activity row; a missing one is null. */
export const activityLinkColumns = (links: Pick<LinkedActivity, 'companyId' | 'personId' | 'leadId' | 'dealId'>) => ({
  companyId: links.companyId ?? null,
  personId: links.personId ?? null,
  leadId: links.leadId ?? null,
  dealId: links.dealId ?? null,
});

function columns(data: LinkedActivity) {
  return {
    type: data.type,
    summary: data.summary.slice(0, 1000),
    description: data.description,
    ...activityLinkColumns(data),
    entityType: data.entityType,
    entityId: data.entityId,
    date: data.date,
    metadata: data.metadata,
    ownerId: data.ownerId,
  };
}

/** Adds the linked row in the caller's flush (same transaction as the note or call). */
export function createLinkedActivity(ctx: Ctx, ref: LinkedRef, data: LinkedActivity): Activity {
  const row = createRecord(ctx, Activity, {
    ...columns(data),
    system: false,
    noteRef: 'noteRef' in ref ? ref.noteRef : null,
    callRef: 'callRef' in ref ? ref.callRef : null,
    taskRef: null,
    userId: ctx.actor.userId,
  });
  ctx.em.persist(row);
  return row;
}

/** Rewrites the source's own linked row (recreating it if it was lost); returns its id. */
export async function syncLinkedActivity(
  ctx: Ctx,
  activityId: string | null,
  ref: LinkedRef,
  data: LinkedActivity,
): Promise<string> {
  const row = activityId ? await ctx.em.findOne(Activity, { _id: activityId }) : null;
  if (!row) return createLinkedActivity(ctx, ref, data)._id;
  Object.assign(row, columns(data));
  row.updatedAt = new Date();
  return row._id;
}

/** Removes every row that points at the source (its own row and any a client added), in the caller's flush. */
export async function removeLinkedActivities(ctx: Ctx, ref: LinkedRef): Promise<void> {
  for (const row of await ctx.em.find(Activity, ref)) ctx.em.remove(row);
}
