import { z } from 'zod';
import { DEFAULT_EXPORT_ROWS, exportSpecs, MAX_EXPORT_ROWS, perRecordType, type ExportSpec } from './export-specs';
import { isoDateParam } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';
import { idView } from '../../platform/shared/views';

// Paging may come in the body or the query string (?limit=10000): numeric strings count as numbers.
const int = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), schema);
const wholeNumber = (min: number) =>
  z.number({ message: 'must be a number' }).int('must be an integer').min(min, `must be at least ${min}`);

/** The paging parameters both export bodies take: rows per request and the 1-based page. */
const rowLimit = int(wholeNumber(1).max(MAX_EXPORT_ROWS, `must be at most ${MAX_EXPORT_ROWS}`));
const rowLimitHelp = `rows per request, default ${DEFAULT_EXPORT_ROWS}, max ${MAX_EXPORT_ROWS}`;
const pageParam = int(wholeNumber(1)).optional().describe('1-based page (offset paging)');

const filterValue = z.union(
  [
    z.string().max(500),
    z.number(),
    z.boolean(),
    z.null(),
    z
      .array(z.union([z.string().max(500), z.number()]))
      .min(1)
      .max(1000),
  ],
  { message: 'must be a string, number, boolean, null or a non-empty array of strings/numbers' },
);

function fieldList(allowed: readonly string[]) {
  return z
    .union([z.string(), z.array(z.string())], {
      message: 'must be an array of field names or a comma-separated string',
    })
    .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((f) => f.trim()).filter(Boolean))
    .superRefine((list, ctx) => {
      const unknown = list.filter((f) => !allowed.includes(f));
      if (unknown.length)
        ctx.addIssue({
          code: 'custom',
          message: `unknown field(s) ${unknown.join(', ')}; allowed: ${allowed.join(', ')}`,
        });
    });
}

/** Export parameters of one record type; every key is optional (defaults are applied by the service). */
export function exportParams(spec: ExportSpec) {
  return z
    .object({
      limit: rowLimit.optional().describe(rowLimitHelp),
      page: pageParam,
      skip: int(wholeNumber(0)).optional().describe('rows to skip (offset paging; instead of page)'),
      cursor: objectId
        .optional()
        .describe(
          '_id of the last row of the previous page: continues after it in the same sort order (keyset paging; not with page/skip)',
        ),
      sortBy: z
        .enum(spec.sortable as [string, ...string[]], { message: `must be one of ${spec.sortable.join(', ')}` })
        .optional()
        .describe('default _id (creation order); ties broken by _id'),
      sortOrder: z
        .enum(['asc', 'desc'], { message: 'must be asc or desc' })
        .optional()
        .describe('default asc; null values sort last'),
      fields: fieldList(spec.fields)
        .optional()
        .describe('stored fields to return (array or comma list); _id is always included'),
      dateFrom: isoDateParam.optional().describe('createdAt from (inclusive)'),
      dateTo: isoDateParam.optional().describe('createdAt to (inclusive; a bare date means the whole day)'),
      filters: z
        .strictObject(Object.fromEntries(spec.filters.map((f) => [f, filterValue.optional()])), {
          error: (issue) =>
            issue.code === 'unrecognized_keys'
              ? `unknown filter(s) ${issue.keys.join(', ')}; allowed: ${spec.filters.join(', ')}`
              : 'must be an object',
        })
        .optional()
        .describe(
          `equality filters on ${spec.filters.join(', ')}; a list matches any of its values, null matches empty; tags: has all the given tags`,
        ),
    })
    .superRefine((v, ctx) => {
      if (v.cursor && (v.page !== undefined || v.skip !== undefined))
        ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cannot be combined with page or skip' });
      if (v.page !== undefined && v.skip !== undefined)
        ctx.addIssue({ code: 'custom', path: ['skip'], message: 'send either page or skip' });
    });
}

/** Each record type's export parameters (built once, on first use). */
export const exportParamsOf = perRecordType((type) => exportParams(exportSpecs()[type]));

/** The query string may carry the scalar parameters (not filters); the body wins on conflicts. */
export const exportQuery = z.object({
  limit: z.string().optional(),
  page: z.string().optional(),
  skip: z.string().optional(),
  cursor: z.string().optional(),
  sortBy: z.string().optional(),
  sortOrder: z.string().optional(),
  fields: z.string().optional(),
  dateFrom: z.string().optional(),
  dateTo: z.string().optional(),
});

export const listExportParams = z.object({ listId: objectId });

/** POST /export/custom-objects/:slug: paging in the body or the query string (numeric strings count as numbers). */
export const customObjectExportBody = z
  .object({
    limit: rowLimit.default(DEFAULT_EXPORT_ROWS).describe(rowLimitHelp),
    page: pageParam,
    cursor: objectId.optional().describe('_id of the last row of the previous page (keyset paging; not with page)'),
    from: isoDateParam.optional().describe('createdAt from (inclusive); alias dateFrom'),
    to: isoDateParam.optional().describe('createdAt to (inclusive; a bare date means the whole day); alias dateTo'),
    dateFrom: isoDateParam.optional(),
    dateTo: isoDateParam.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.cursor && v.page !== undefined)
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'cannot be combined with page' });
  });
export const customObjectExportQuery = z.object({
  limit: z.string().optional(),
  page: z.string().optional(),
  cursor: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
});

/**
 * One exported row of a record type: `_id` and the selected stored fields (all of the spec's
 * fields unless `fields` narrows them), named as GET /<type>/:id names them, dates as ISO strings.
 */
export function exportRowView(spec: ExportSpec) {
  return z
    .object({
      _id: idView,
      ...Object.fromEntries(spec.fields.filter((f) => f !== '_id').map((f) => [f, z.unknown().optional()])),
    })
    .describe(`a ${spec.type} row: _id and the selected fields (${spec.fields.join(', ')})`);
}

/** The answer of an export: one page of rows with offset (page/skip) or keyset (cursor) paging. */
export function exportPageView(row: z.ZodType) {
  return z.object({
    data: z.array(row),
    total: z.number().int().min(0).describe('rows matching the filters (all pages)'),
    limit: z.number().int().min(1),
    hasMore: z.boolean(),
    nextCursor: idView.nullable().describe('_id of the last row when hasMore (send it as cursor)'),
    page: z.number().int().min(1).optional().describe('offset paging by page (absent with cursor or skip)'),
    skip: z.number().int().min(0).optional().describe('offset paging by skip (absent with cursor or page)'),
  });
}

/** Each record type's export row view (built once, on first use). */
export const exportRowViews = perRecordType((type) => exportRowView(exportSpecs()[type]));
