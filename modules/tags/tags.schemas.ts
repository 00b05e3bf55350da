import { z } from 'zod';
import { RECORD_TYPES } from '../../platform/shared/record-kinds';
import { pageParams } from '../../platform/shared/list-query';
import { objectId, tagsField } from '../../platform/shared/schemas';

const entityType = z.enum(RECORD_TYPES, { message: `must be one of: ${RECORD_TYPES.join(', ')}` });
export const MAX_BULK_IDS = 500;

/** A tag picker usually wants every tag at once: a page may hold more than the usual 100. */
export const MAX_TAGS_PAGE = 500;
export const listTagsQuery = z.object({ entityType: entityType.optional(), ...pageParams(MAX_TAGS_PAGE) });

export const bulkTagsBody = z
  .object({
    entityType,
    entityIds: z.array(objectId).min(1, 'at least one id is required').max(MAX_BULK_IDS, `at most ${MAX_BULK_IDS} ids`),
    add: tagsField.default([]),
    remove: tagsField.default([]),
  })
  .refine((b) => b.add.length > 0 || b.remove.length > 0, {
    message: 'add or remove must name at least one tag',
    path: ['add'],
  });

export const tagCountView = z.object({
  tag: z.string(),
  count: z.number().int().min(1).describe('records of the listed types carrying the tag'),
});
export type TagCountView = z.infer<typeof tagCountView>;

export const bulkTagsResultView = z.object({
  updated: z.number().int().min(0).describe('records whose tags changed'),
  unchanged: z.number().int().min(0).describe('records that already had (or lacked) the tags'),
});
export type BulkTagsResultView = z.infer<typeof bulkTagsResultView>;
