import type { Ctx } from '../../platform/context';
import { createCompany, updateCompany, type CompanyInput, type ImageResolver } from '../companies';
import { createDeal, updateDeal, type DealInput } from '../deals';
import { matchCompany, matchPersonByEmail } from '../inbound';
import { createLead, updateLead, type LeadInput } from '../leads';
import { createPerson, updatePerson, type PersonInput } from '../people';
import type { ImportRunEntityType } from './import-run.entity';

/**
 * How rows of one entity type are saved, through the same domain services as the create
 * endpoints (events, feed rows, scoring and custom-field validation apply to every row).
 */
export interface Importer<Row> {
  entityType: ImportRunEntityType;
  /** Description of the duplicate rule, for the docs; null when the type has none. */
  dedupeKey: string | null;
  /** Keys of this row within one batch (a validate run has not saved the earlier rows). */
  batchKeys(row: Row): string[];
  findExisting(ctx: Ctx, row: Row): Promise<string | null>;
  create(ctx: Ctx, row: Row, preview: boolean): Promise<unknown>;
  update(ctx: Ctx, id: string, row: Row, preview: boolean): Promise<unknown>;
}

type CompanyRow = CompanyInput & { name: string };
type PersonRow = PersonInput & { firstName: string };
type LeadRow = LeadInput & { title: string };
type DealRow = DealInput & { title: string };

export function companyImporter(images: ImageResolver): Importer<CompanyRow> {
  return {
    entityType: 'company',
    dedupeKey: 'exact cvr, else case-insensitive exact name (a company with another cvr is never a duplicate)',
    batchKeys: (row) => [...(row.cvr ? [`cvr:${row.cvr}`] : []), `name:${row.name.trim().toLowerCase()}`],
    findExisting: async (ctx, row) =>
      (await matchCompany(ctx, { cvr: row.cvr ?? undefined, name: row.name }))?.company._id ?? null,
    create: (ctx, row, preview) => createCompany(ctx, row, { preview, images }),
    update: (ctx, id, row, preview) => updateCompany(ctx, id, row, { preview, images }),
  };
}

export function personImporter(images: ImageResolver): Importer<PersonRow> {
  return {
    entityType: 'person',
    dedupeKey: "any of the row's e-mail addresses held by an existing person (case-insensitive)",
    batchKeys: (row) => (row.emails ?? []).map((e) => `email:${e.email.toLowerCase()}`),
    findExisting: async (ctx, row) => {
      for (const { email } of row.emails ?? []) {
        const found = await matchPersonByEmail(ctx, email);
        if (found) return found._id;
      }
      return null;
    },
    create: (ctx, row, preview) => createPerson(ctx, row, { preview, images }),
    update: (ctx, id, row, preview) => updatePerson(ctx, id, row, { preview, images }),
  };
}

export const leadImporter: Importer<LeadRow> = {
  entityType: 'lead',
  dedupeKey: 'e-mail (case-insensitive); rows without e-mail are never duplicates',
  batchKeys: (row) => (row.email ? [`email:${row.email.toLowerCase()}`] : []),
  findExisting: async (ctx, row) => {
    if (!row.email) return null;
    const rows = await ctx.em
      .getConnection()
      .execute<{ id: string }[]>(
        'select id from lead where workspace_id = ? and lower(email) = ? order by created_at asc, id asc limit 1',
        [ctx.actor.workspaceId, row.email.toLowerCase()],
        'all',
        ctx.em.getTransactionContext(),
      );
    return rows[0]?.id ?? null;
  },
  create: (ctx, row, preview) => createLead(ctx, row, { preview }),
  update: (ctx, id, row, preview) => updateLead(ctx, id, row, { preview }),
};

/** Deals have no natural key: every valid row is a new deal, whatever the dedupe option. */
export const dealImporter: Importer<DealRow> = {
  entityType: 'deal',
  dedupeKey: null,
  batchKeys: () => [],
  findExisting: async () => null,
  create: (ctx, row, preview) => createDeal(ctx, row, { preview }),
  update: (ctx, id, row, preview) => updateDeal(ctx, id, row, { preview }),
};
