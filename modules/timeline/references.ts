import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import type { RefKind } from './ref-kind';

export type { RefKind } from './ref-kind';

const LABEL: Record<RefKind, string> = {
  company: 'company',
  person: 'person',
  lead: 'lead',
  deal: 'deal',
  project: 'project',
  customObjectRecord: 'custom object record',
};

// The ORM entity name of each kind's records (tenant-filtered counts by name). The timeline holds these data
// references, not imports of the record modules: their services write timeline rows (they import the timeline),
// so importing their entities made the cycles companies/people/leads/deals/projects/custom-objects → timeline → them.
const ENTITY: Record<RefKind, string> = {
  company: 'Company',
  person: 'Person',
  lead: 'Lead',
  deal: 'Deal',
  project: 'Project',
  customObjectRecord: 'CustomObjectRecord',
};

export interface RefCheck {
  field: string;
  kind: RefKind;
  id: string | null | undefined;
}

/** 400 naming the field when a referenced record does not exist in the caller's workspace. */
export async function assertRefs(ctx: Ctx, checks: readonly RefCheck[]): Promise<void> {
  for (const { field, kind, id } of checks) {
    if (!id) continue;
    const found = await ctx.em.count<{ _id: string }>(ENTITY[kind], { _id: id });
    if (!found) {
      const error = `no ${LABEL[kind]} with id ${id}`;
      throw validation(`${field}: ${error}`, [{ path: field, error }]);
    }
  }
}

/** Every id must be a user of the caller's workspace. */
export async function assertUsers(ctx: Ctx, field: string, ids: readonly (string | null | undefined)[]): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (!wanted.length) return;
  // The workspaces module's User, by ORM name like the record entities above (no import of a record module).
  const found = await ctx.em.find<{ _id: string }, never, '_id'>('User', { _id: { $in: wanted } }, { fields: ['_id'] });
  const known = new Set(found.map((u) => u._id));
  const missing = wanted.find((id) => !known.has(id));
  if (missing)
    throw validation(`${field}: no user with id ${missing} in this workspace`, [
      { path: field, error: `no user with id ${missing}` },
    ]);
}

/** Timeline link columns for a record of the given kind (kinds without a column use entityType/entityId only). */
export function linkColumns(
  kind: RefKind,
  id: string,
): { companyId?: string; personId?: string; leadId?: string; dealId?: string } {
  switch (kind) {
    case 'company':
      return { companyId: id };
    case 'person':
      return { personId: id };
    case 'lead':
      return { leadId: id };
    case 'deal':
      return { dealId: id };
    default:
      return {};
  }
}

export interface RecordLinks {
  companyId?: string | null;
  personId?: string | null;
  leadId?: string | null;
  dealId?: string | null;
  ownerId?: string | null;
}

/** The four record links (and owner) of calls and calendar events must exist in the workspace. */
export async function assertRecordLinks(ctx: Ctx, input: RecordLinks): Promise<void> {
  await assertRefs(ctx, [
    { field: 'companyId', kind: 'company', id: input.companyId },
    { field: 'personId', kind: 'person', id: input.personId },
    { field: 'leadId', kind: 'lead', id: input.leadId },
    { field: 'dealId', kind: 'deal', id: input.dealId },
  ]);
  if (input.ownerId !== undefined) await assertUsers(ctx, 'ownerId', [input.ownerId]);
}
