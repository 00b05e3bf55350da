import { z } from 'zod';
import { listQuery } from '../../platform/shared/list-query';
import { clearableText, objectId } from '../../platform/shared/schemas';
import { isoDate, metadataField, refField, userId } from '../../platform/shared/record-fields';
import { RECORD_TYPES } from '../../platform/shared/record-types';
import type { RefKind } from './ref-kind';
import { dateTimeView, idView, openObjectView, readViewOf } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

/** entityType values a timeline entry may name with entityId. */
export const ACTIVITY_ENTITY_TYPES = RECORD_TYPES satisfies readonly RefKind[];
export type ActivityEntityType = (typeof ACTIVITY_ENTITY_TYPES)[number];

export const MAX_ACTIVITY_DESCRIPTION = 50_000;

export const createActivityBody = z
  .object({
    type: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(60, 'must be at most 60 characters')
      .describe(
        'free text up to 60 characters; common values: call, meeting, email, note, sms, task, follow_up, visit, other',
      ),
    summary: clearableText(1000).optional(),
    title: clearableText(1000).optional().describe('alias of summary (summary wins when both are sent)'),
    description: clearableText(MAX_ACTIVITY_DESCRIPTION).optional(),
    companyId: ref('company', refField).optional(),
    personId: ref('person', refField).optional(),
    dealId: ref('deal', refField).optional(),
    leadId: ref('lead', refField).optional(),
    entityType: z
      .enum(ACTIVITY_ENTITY_TYPES, { message: `must be one of ${ACTIVITY_ENTITY_TYPES.join(', ')}` })
      .optional(),
    entityId: objectId.optional(),
    noteRef: ref('note', refField).optional().describe('id of the note this activity belongs to'),
    date: isoDate.optional().describe('when it happened; default now'),
    metadata: metadataField.optional(),
    ownerId: userId.optional().describe('default: the API caller'),
  })
  .superRefine((b, ctx) => {
    if ((b.entityType === undefined) !== (b.entityId === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [b.entityType ? 'entityId' : 'entityType'],
        message: 'entityType and entityId go together',
      });
    }
  })
  .transform(({ title, ...rest }) => ({ ...rest, summary: rest.summary ?? title ?? null }));

export const listActivitiesQuery = listQuery({
  strict: true,
  extra: {
    type: z.string().trim().min(1).max(60).optional(),
    companyId: objectId.optional(),
    personId: objectId.optional(),
    dealId: objectId.optional(),
    leadId: objectId.optional(),
    ownerId: objectId.optional(),
    q: z.string().trim().max(200).optional().describe('case-insensitive match on summary, description, type'),
  },
});

/** What the service writes: the parsed create body (title folded into summary). */
export type ActivityInput = z.infer<typeof createActivityBody>;

/** One timeline row: a user activity (call, meeting, note, …) or, with system: true, record history. */
export const activityView = z.object({
  _id: idView,
  type: z.string().describe('call, meeting, email, note, …; record history: record_created, record_updated, …'),
  system: z.boolean().describe('true for record-history rows (only in activity feeds)'),
  summary: z.string().nullable(),
  title: z.string().nullable().describe('same as summary'),
  description: z.string().nullable(),
  companyId: idView.nullable(),
  personId: idView.nullable(),
  dealId: idView.nullable(),
  leadId: idView.nullable(),
  entityType: z.string().nullable().describe('kind of the record the row is about'),
  entityId: z.string().nullable().describe('id of the record the row is about'),
  noteRef: idView.nullable().describe('note this row mirrors'),
  callRef: idView.nullable().describe('call this row mirrors'),
  taskRef: idView.nullable().describe('task this row mirrors'),
  date: dateTimeView.describe('when it happened'),
  metadata: openObjectView.describe('extra data of the row, e.g. changes { field: { from, to } } on record_updated'),
  userId: idView.nullable().describe('who recorded it'),
  ownerId: idView.nullable().describe('whose activity it is'),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type ActivityView = z.infer<typeof activityView>;

/** An activity as GET/list answer it: the full view, or with `view=summary` `_id` plus the summary fields. */
export const activityReadView = readViewOf(activityView, 'projection (view=summary): _id plus the summary fields');
