import { z } from 'zod';
import { fieldsQuery, isoDateParam, listQuery } from '../../platform/shared/list-query';
import { nameValueCustomFields, objectId, requiredText, tagsField } from '../../platform/shared/schemas';
import { customFieldsView, dateTimeView, idView, readViewOf } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

export const DEAL_FIELDS = [
  '_id',
  'title',
  'value',
  'flowId',
  'stageId',
  'priority',
  'probability',
  'company',
  'personRef',
  'leadRef',
  'customFields',
  'tags',
  'status',
  'wonDate',
  'lostDate',
  'ownerId',
  'createdAt',
  'updatedAt',
] as const;
export const DEAL_SORT_FIELDS = [
  'title',
  'value',
  'updatedAt',
  'createdAt',
  'status',
  'lostDate',
  'wonDate',
  'stage',
] as const;
export const DEAL_SUMMARY_FIELDS = [
  'title',
  'value',
  'status',
  'flowId',
  'stageId',
  'company',
  'personRef',
  'ownerId',
  'updatedAt',
] as const;

const DEAL_STATUSES = ['open', 'won', 'lost'] as const;
const MAX_VALUE = 1e15;

const dealFields = {
  value: z
    .number({ message: 'must be a number' })
    .min(0, 'must be at least 0')
    .max(MAX_VALUE, `must be at most ${MAX_VALUE}`)
    .nullable(),
  flowId: ref('flow', objectId).describe("pipeline; alone it places the deal in the flow's first open stage"),
  stageId: ref('stage', objectId).describe(
    "stage; must belong to flowId, or to the deal's flow when flowId is not sent",
  ),
  priority: z.enum(['low', 'medium', 'high'], { message: 'must be one of low, medium, high' }).nullable(),
  probability: z
    .number({ message: 'must be a number' })
    .min(0, 'must be at least 0')
    .max(100, 'must be at most 100')
    .nullable(),
  company: ref('company', objectId).nullable().describe('company id'),
  personRef: ref('person', objectId).nullable().describe('person id'),
  leadRef: ref('lead', objectId).nullable().describe('lead id'),
  customFields: nameValueCustomFields.describe(
    'object map (name/value pairs are accepted and converted); PUT merges, null removes a key',
  ),
  tags: tagsField,
  ownerId: ref('user', objectId).describe('a user of the workspace; default: the caller'),
  status: z
    .enum(DEAL_STATUSES, { message: 'must be one of open, won, lost' })
    .describe('won/lost set wonDate/lostDate; open clears both'),
  wonDate: isoDateParam.describe('backdates the win; only with status won'),
  lostDate: isoDateParam.describe('backdates the loss; only with status lost'),
};

export const createDealBody = z.object({ title: requiredText(500) }).extend(z.object(dealFields).partial().shape);

/** PUT is partial; customFields merges by key (null removes). */
export const updateDealBody = z.object({ title: requiredText(500), ...dealFields }).partial();

export const moveDealBody = z.object({
  stageId: ref('stage', objectId),
  flowId: ref('flow', objectId).optional().describe("required when the stage belongs to another flow than the deal's"),
});

export const getDealQuery = z.object({ fields: fieldsQuery(DEAL_FIELDS).optional() });

const aliasOf = (name: string) => objectId.optional().describe(`alias of ${name}`);

/** Strict: an unknown parameter is a 400 naming it (spec: deals list). */
export const listDealsQuery = listQuery({
  strict: true,
  maxLimit: 100,
  fields: DEAL_FIELDS,
  extra: {
    q: z.string().trim().max(200).optional().describe('case-insensitive match on the title'),
    status: z.enum(DEAL_STATUSES, { message: 'must be one of open, won, lost' }).optional(),
    flowId: objectId.optional(),
    flowRef: aliasOf('flowId'),
    stageId: objectId.optional(),
    stage: aliasOf('stageId'),
    ownerId: objectId.optional(),
    owner: aliasOf('ownerId'),
    sortBy: z
      .enum(DEAL_SORT_FIELDS, { message: `must be one of ${DEAL_SORT_FIELDS.join(', ')}` })
      .optional()
      .describe('stage sorts by the stage order in its pipeline'),
    sortOrder: z
      .enum(['asc', 'desc'], { message: 'must be asc or desc' })
      .optional()
      .describe('default asc for title, status, stage; desc otherwise'),
  },
})
  .superRefine((q, ctx) => {
    for (const [name, alias] of [
      ['flowId', 'flowRef'],
      ['stageId', 'stage'],
      ['ownerId', 'owner'],
    ] as const) {
      if (q[name] && q[alias] && q[name] !== q[alias])
        ctx.addIssue({ code: 'custom', path: [alias], message: `conflicts with ${name}; send one of them` });
    }
  })
  .transform(({ flowRef, stage, owner, ...q }) => ({
    ...q,
    flowId: q.flowId ?? flowRef,
    stageId: q.stageId ?? stage,
    ownerId: q.ownerId ?? owner,
  }));

/** What the deal service writes: the parsed create/update body (create also requires title). */
export type DealInput = z.infer<typeof updateDealBody>;

export const dealView = z.object({
  _id: idView,
  title: z.string(),
  value: z.number().nullable(),
  flowId: idView.nullable().describe('pipeline'),
  stageId: idView.nullable().describe('stage of the pipeline'),
  priority: z.enum(['low', 'medium', 'high']).nullable(),
  probability: z.number().nullable().describe('0–100'),
  company: idView.nullable().describe('company id'),
  personRef: idView.nullable().describe('person id'),
  leadRef: idView.nullable().describe('lead id'),
  customFields: customFieldsView,
  tags: z.array(z.string()),
  status: z.enum(DEAL_STATUSES),
  wonDate: dateTimeView.nullable(),
  lostDate: dateTimeView.nullable(),
  ownerId: idView.nullable(),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type DealView = z.infer<typeof dealView>;

/** A deal as GET/list answer it: the full view, or a projection (`_id` plus the chosen fields). */
export const dealReadView = readViewOf(dealView);
