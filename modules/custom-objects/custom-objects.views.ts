import { z } from 'zod';
import { dateTimeView, idView, recordViewFields } from '../../platform/shared/views';
import { RECORD_TYPES } from '../../platform/shared/record-types';
import { FIELD_TYPES, ROLLUP_AGGREGATES } from './field-types';

/**
 * Response views of the custom-object routes (definitions, fields, records and their reads).
 * Serializers in custom-objects.service.ts and records.service.ts are typed by them.
 */

const fieldOptionView = z.object({ value: z.string(), label: z.string(), color: z.string().optional() });

const rollupView = z
  .object({
    object: z.string().describe('slug of the custom object whose records are aggregated'),
    via: z.string().describe('its record_reference field that points at this object'),
    aggregate: z.enum(ROLLUP_AGGREGATES),
    field: z.string().nullable().describe('aggregated number, currency or formula field (null for count)'),
  })
  .describe('rollup fields: what is aggregated');

export const customObjectFieldView = z.object({
  ...recordViewFields,
  slug: z.string(),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  isRequired: z.boolean(),
  isUnique: z.boolean(),
  options: z.array(fieldOptionView).describe('select and multi_select fields; empty otherwise'),
  referenceType: z.enum(['custom', 'native']).nullable().describe('record_reference fields'),
  referenceObject: z.string().nullable().describe('custom record_reference: the target object slug'),
  nativeEntity: z.enum(RECORD_TYPES).nullable().describe('native record_reference: the target record type'),
  order: z.number().int(),
  expression: z.string().nullable().describe('formula fields: the arithmetic expression'),
  rollup: rollupView.nullable(),
});
export type CustomObjectFieldView = z.infer<typeof customObjectFieldView>;

export const customObjectView = z.object({
  ...recordViewFields,
  slug: z.string(),
  singular: z.string(),
  plural: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  color: z.string().nullable().describe('hex colour, lower case'),
  useAccentNavIcon: z.boolean(),
  searchable: z.boolean(),
  showInSidebar: z.boolean(),
  titleField: z.string().nullable().describe('slug of the field whose value is a record title'),
  favoriteFieldKeys: z.array(z.string()),
  searchableFields: z.array(z.string()),
  views: z.unknown().describe('saved UI views (open JSON as written); null when unset'),
  piiFields: z.array(z.string()),
  workspace: idView.describe('workspace id'),
});
export type CustomObjectView = z.infer<typeof customObjectView>;

/** A definition with its field schemas (single reads and writes). */
export const customObjectDetailView = customObjectView.extend({ fields: z.array(customObjectFieldView) });
export type CustomObjectDetailView = z.infer<typeof customObjectDetailView>;

export const customObjectDeletedView = z.object({
  deleted: z.literal(true),
  deletedRecords: z.number().int().min(0).describe('records deleted with the definition'),
});

/** A record: fixed keys plus one top-level key per field slug that has a value. */
export const customObjectRecordView = z
  .object({
    _id: idView,
    object: z.string().describe('slug of the custom object'),
    recordNumber: z.number().int().min(1),
    title: z.unknown().describe("the title field's value; null without a title field or value"),
    avatar: z.string().nullable(),
    workspace: idView.describe('workspace id'),
    createdBy: idView,
    updatedBy: idView,
    createdAt: dateTimeView,
    updatedAt: dateTimeView,
  })
  .catchall(z.unknown())
  .describe('field slug → value at the top level (open: fields are defined per object)');
export type CustomObjectRecordView = z.infer<typeof customObjectRecordView>;

export const recordListExtras = {
  nextCursor: idView.nullable().describe('`_id` of the last record when the page is full (pass as cursor)'),
};

export const bulkUpdateResultView = z.object({
  matched: z.number().int().min(0),
  updated: z.number().int().min(0),
  notFound: z.array(idView).describe('ids that are no record of this object'),
});
export type BulkUpdateResultView = z.infer<typeof bulkUpdateResultView>;

const relatedBase = {
  field: z.string().describe('the reference field slug (of this record when outgoing, of the other when incoming)'),
  entityId: idView,
  title: z.string(),
};
export const relatedRecordView = z.union([
  z.object({
    direction: z.literal('outgoing'),
    ...relatedBase,
    entityType: z.enum(RECORD_TYPES),
  }),
  z.object({
    direction: z.enum(['outgoing', 'incoming']),
    ...relatedBase,
    entityType: z.literal('custom_object_record'),
    object: z.string().describe('slug of the other custom object'),
  }),
]);
export type RelatedRecordView = z.infer<typeof relatedRecordView>;

export const customObjectSearchView = z.object({
  query: z.string(),
  hits: z.array(
    z.object({
      _id: idView,
      object: z.string().describe('custom object slug'),
      objectLabel: z.string().describe('its singular label'),
      recordNumber: z.number().int(),
      title: z.string(),
      snippet: z.string().describe('HTML fragment with matches in <mark>…</mark>'),
    }),
  ),
  total: z.number().int().min(0),
  degraded: z.literal(true).optional().describe('answered from Postgres: Meilisearch unavailable or behind'),
});

export const customObjectImportReportView = z.object({
  importId: idView.nullable().describe('the run in GET /import/history (null for validate: true)'),
  entityType: z.literal('custom_object'),
  dryRun: z.boolean(),
  dedupe: z.literal('none'),
  total: z.number().int().min(0),
  created: z.number().int().min(0),
  updated: z.number().int().min(0),
  skipped: z.number().int().min(0),
  failed: z.number().int().min(0),
  errors: z.array(
    z.object({
      row: z.number().int().min(0).describe('0-based index'),
      errors: z.array(z.object({ path: z.string(), error: z.string() })),
    }),
  ),
});

export const recordExportPageView = z.object({
  data: z.array(customObjectRecordView),
  total: z.number().int().min(0),
  limit: z.number().int().min(1),
  hasMore: z.boolean(),
  nextCursor: idView.nullable().describe('`_id` of the last row when hasMore'),
  page: z.number().int().min(1).optional().describe('absent when paging by cursor'),
});
export type RecordExportPageView = z.infer<typeof recordExportPageView>;
