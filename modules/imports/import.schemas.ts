import { z } from 'zod';
import { IMPORT_ENTITY_TYPES, type ImportEntityType } from './import-run.entity';
import { MAX_IMPORT_ROWS, type ParsedRow } from './import.limits';
import { formatZodError } from '../../platform/shared/schemas';
import { dateTimeView, idView } from '../../platform/shared/views';
import { createCompanyBody } from '../companies';
import { createLeadBody } from '../leads';
import { createDealBody } from '../deals';
import { createPersonBody } from '../people';

/** Rows are validated one by one with the create endpoints' own schemas. */
export const ROW_SCHEMAS: Record<ImportEntityType, z.ZodType> = {
  company: createCompanyBody,
  person: createPersonBody,
  lead: createLeadBody,
  deal: createDealBody,
};

export const IMPORT_PATHS: Record<ImportEntityType, string> = {
  company: 'companies',
  person: 'people',
  lead: 'leads',
  deal: 'deals',
};

export function rowParser(entityType: ImportEntityType): (raw: unknown) => ParsedRow<unknown> {
  const schema = ROW_SCHEMAS[entityType];
  return (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return { ok: false, errors: [{ path: '', error: 'row must be an object' }] };
    const parsed = schema.safeParse(raw);
    return parsed.success
      ? { ok: true, row: parsed.data }
      : { ok: false, errors: formatZodError(parsed.error, 'row').details };
  };
}

const options = z
  .object({
    dedupe: z
      .enum(['skip', 'update', 'none'], { message: 'must be one of skip, update, none' })
      .default('skip')
      .describe(
        'what to do with a row that duplicates an existing record (companies: cvr, else name; people: e-mail; leads: e-mail; deals: never duplicates)',
      ),
  })
  .default({ dedupe: 'skip' });

export const importBody = z.object({
  rows: z
    .array(z.unknown(), { message: 'must be an array of row objects' })
    .min(1, 'at least 1 row is required')
    .max(MAX_IMPORT_ROWS, `at most ${MAX_IMPORT_ROWS} rows per request`)
    .describe("row objects shaped like the create endpoint's body; each is validated on its own"),
  options,
});

const ENTITY_NAMES = [...IMPORT_ENTITY_TYPES, ...Object.values(IMPORT_PATHS)] as const;
const SINGULAR = Object.fromEntries(IMPORT_ENTITY_TYPES.map((t) => [IMPORT_PATHS[t], t])) as Record<
  string,
  ImportEntityType
>;

export const validateBody = importBody.extend({
  entityType: z
    .enum(ENTITY_NAMES as unknown as [string, ...string[]], {
      message: `must be one of ${IMPORT_ENTITY_TYPES.join(', ')} (plural forms accepted)`,
    })
    .transform((t) => (SINGULAR[t] ?? t) as ImportEntityType),
});

/** POST /import/custom-objects/:slug. */
export const customObjectImportBody = z.object({
  rows: z
    .array(z.unknown(), { message: 'must be an array of row objects' })
    .min(1, 'at least 1 row is required')
    .max(MAX_IMPORT_ROWS, `at most ${MAX_IMPORT_ROWS} rows per request`)
    .describe(
      'records shaped like the body of POST /custom-objects/:slug/records; each is validated and saved on its own',
    ),
  validate: z
    .boolean({ message: 'must be true or false' })
    .default(false)
    .describe('true: run every check and answer the same report without saving (importId null)'),
});

const importEntityTypeView = z
  .enum([...IMPORT_ENTITY_TYPES, 'custom_object'])
  .describe('the record type imported (custom_object: records of one custom object)');
const dedupeView = z.enum(['skip', 'update', 'none']).describe('none when the type has no duplicate key');

export const importRowErrorView = z.object({
  row: z.number().int().min(0).describe('0-based index in rows'),
  errors: z.array(z.object({ path: z.string().describe('field path; empty for the whole row'), error: z.string() })),
});

/** Row counts of an import run, shared by the report and the history row. */
const importCountsView = {
  total: z.number().int().min(0),
  created: z.number().int().min(0),
  updated: z.number().int().min(0),
  skipped: z.number().int().min(0),
  failed: z.number().int().min(0),
};

/** The answer of an import or a dry run (validate). */
export const importReportView = z.object({
  importId: idView.nullable().describe('the import run (GET /import/history); null for a dry run'),
  entityType: importEntityTypeView,
  dryRun: z.boolean(),
  dedupe: dedupeView,
  ...importCountsView,
  errors: z.array(importRowErrorView).describe('every failed row'),
});
export type ImportReportView = z.infer<typeof importReportView>;

/** One import run of GET /import/history. */
export const importRunView = z.object({
  _id: idView,
  entityType: importEntityTypeView,
  dedupe: dedupeView,
  ...importCountsView,
  errors: z.array(importRowErrorView).describe('the first 100 row errors'),
  userId: idView.nullable().describe('who ran the import'),
  startedAt: dateTimeView,
  finishedAt: dateTimeView.nullable().describe('null while running or when cut short'),
});
export type ImportRunView = z.infer<typeof importRunView>;
