import { z } from 'zod';
import { IMPORT_ENTITY_TYPES, type ImportEntityType } from './import-run.entity';
import { MAX_IMPORT_ROWS, type ParsedRow } from './import.service';
import { formatZodError } from '../shared/schemas';
import { createCompanyBody } from '../companies/companies.schemas';
import { createDealBody } from '../deals/deals.schemas';
import { createLeadBody } from '../leads/leads.schemas';
import { createPersonBody } from '../people/people.schemas';

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
