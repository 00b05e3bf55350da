import { z } from 'zod';
import { fieldsQuery, listQuery } from '../../platform/shared/list-query';
import {
  clearableEmail,
  clearableText,
  mapCustomFields,
  objectId,
  requiredText,
  tagsField,
} from '../../platform/shared/schemas';
import { customFieldsView, dateTimeView, idView, readViewOf } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';
import { timeZoneField } from '../../platform/shared/time-zone';

export const LEAD_FIELDS = [
  '_id',
  'title',
  'email',
  'phone',
  'status',
  'source',
  'notes',
  'score',
  'scoreBreakdown',
  'value',
  'companyRef',
  'personRef',
  'customFields',
  'tags',
  'ownerId',
  'createdAt',
  'updatedAt',
  'timeZone',
] as const;
export const LEAD_SUMMARY_FIELDS = [
  'title',
  'status',
  'source',
  'score',
  'value',
  'email',
  'phone',
  'ownerId',
  'updatedAt',
] as const;

export const MAX_LEAD_NOTES = 20_000;
export const MAX_LEAD_VALUE = 1e15;

/** An optional reference that may be cleared with null or "". */
const clearableRef = z.union([objectId, z.literal(''), z.null()]).transform((v) => v || null);

const leadFields = {
  email: clearableEmail,
  phone: clearableText(50),
  status: requiredText(50).describe('free text, default "new"'),
  source: clearableText(100),
  notes: clearableText(MAX_LEAD_NOTES),
  value: z.number().min(0, 'must be at least 0').max(MAX_LEAD_VALUE, `must be at most ${MAX_LEAD_VALUE}`).nullable(),
  companyRef: ref('company', clearableRef).describe('company id of this workspace'),
  personRef: ref('person', clearableRef).describe("person id of this workspace (the lead's contact)"),
  customFields: mapCustomFields.describe(
    'key → value map (name/value pairs accepted and converted); on update only given keys change, null removes a key',
  ),
  tags: tagsField,
  ownerId: z
    .union([ref('user', objectId), z.null()])
    .describe('user id of this workspace; on create, when omitted, lead routing rules (else the caller) decide'),
  timeZone: timeZoneField,
};

// score and scoreBreakdown are not listed: the server computes them and ignores client values.
export const createLeadBody = z.object({ title: requiredText(500) }).extend(z.object(leadFields).partial().shape);

/** PUT is a partial update: only the given keys change. */
export const updateLeadBody = z.object({ title: requiredText(500), ...leadFields }).partial();

const filterText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).optional();

export const listLeadsQuery = listQuery({
  maxLimit: 500,
  fields: LEAD_FIELDS,
  extra: {
    status: filterText(50).describe('exact status'),
    source: filterText(100).describe('exact source'),
    ownerId: objectId.optional(),
    search: filterText(200).describe('case-insensitive match on title, e-mail, phone, source'),
    q: filterText(200).describe('alias of search'),
  },
});

export const getLeadQuery = z.object({ fields: fieldsQuery(LEAD_FIELDS).optional() });

/** Writable lead fields; score and scoreBreakdown are computed, never taken from the client. */
export type LeadInput = z.infer<typeof updateLeadBody>;

/** One matched scoring rule, kept on the lead so a client can explain its score. */
export const scoreBreakdownEntryView = z.object({
  ruleId: idView.describe('scoring rule'),
  name: z.string(),
  field: z.string(),
  condition: z.string(),
  points: z.number(),
});

export const leadView = z.object({
  _id: idView,
  title: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  status: z.string().describe('free text, default "new"'),
  source: z.string().nullable(),
  notes: z.string().nullable(),
  score: z.number().int().describe('sum of the points of the matching scoring rules'),
  scoreBreakdown: z.array(scoreBreakdownEntryView),
  value: z.number().nullable(),
  companyRef: idView.nullable().describe('company id'),
  personRef: idView.nullable().describe('person id'),
  customFields: customFieldsView,
  tags: z.array(z.string()),
  ownerId: idView.nullable(),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
  timeZone: z
    .string()
    .nullable()
    .describe("IANA time zone of the lead's contact; sequence sends follow its local time"),
});
export type LeadView = z.infer<typeof leadView>;

/** A lead as GET/list answer it: the full view, or a projection (`_id` plus the chosen fields). */
export const leadReadView = readViewOf(leadView);
