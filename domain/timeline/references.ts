import type { EntityName } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { Company } from '../../modules/companies';
import { customObjectRecordResource } from '../../modules/custom-objects/custom-objects.resource';
import { Deal } from '../deals/deal.entity';
import { Lead } from '../leads/lead.entity';
import { Person } from '../people/person.entity';
import { Project } from '../../modules/projects';
import { User } from '../../modules/workspaces';
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

// The one place to extend when projects and custom object records land: a kind without an
// entity here has no records yet, so every id of it is unknown (400, never a dangling link).
const ENTITY: Partial<Record<RefKind, EntityName<object>>> = {
  company: Company as EntityName<object>,
  person: Person as EntityName<object>,
  lead: Lead as EntityName<object>,
  deal: Deal as EntityName<object>,
  project: Project as EntityName<object>,
  // The manifest's entity: the module's index would import its services, which import the timeline (a cycle).
  customObjectRecord: customObjectRecordResource.entity as EntityName<object>,
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
    const entity = ENTITY[kind];
    const found = entity ? await ctx.em.count(entity, { _id: id }) : 0;
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
  const found = await ctx.em.find(User, { _id: { $in: wanted } }, { fields: ['_id'] });
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
