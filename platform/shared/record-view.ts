/**
 * How records look inside an automation context (plain JSON, dates as ISO text, internal columns
 * dropped). Used by the context loader and by the resource manifests' automation loaders.
 */
import { wrap, type EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/** The fields of a person (modules/people) the contact namespace reads. */
export interface ContactFields {
  firstName: string;
  lastName?: string | null;
  emails: readonly { email: string }[];
  phones: readonly { phone: string; label?: string | null }[];
}

/** The fields of a user (modules/workspaces) the owner namespace reads. */
export interface OwnerFields {
  _id: string;
  firstName: string;
  lastName?: string | null;
  email: string;
  phone?: string | null;
}

const INTERNAL = new Set(['workspaceId', 'scoreBreakdown', 'conversation', 'transcriptText']);

/** An entity as JSON for the context: internal columns dropped, dates as ISO strings. */
export function plainRecord(entity: object): Record<string, unknown> {
  const obj = wrap(entity).toObject() as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!INTERNAL.has(k)) out[k] = v instanceof Date ? v.toISOString() : v;
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown>;
}

const fullName = (first?: string | null, last?: string | null): string => [first, last].filter(Boolean).join(' ');

/** The spec's contact namespace (firstName, lastName, fullName, email, phone, mobile, title) over a person. */
export function contactView(p: ContactFields): Record<string, unknown> {
  const mobile = p.phones.find((x) => /mobil/i.test(x.label ?? ''))?.phone ?? null;
  return {
    ...plainRecord(p),
    fullName: fullName(p.firstName, p.lastName),
    email: p.emails[0]?.email ?? null,
    phone: p.phones[0]?.phone ?? null,
    mobile,
  };
}

export function ownerView(u: OwnerFields): Record<string, unknown> {
  return {
    _id: u._id,
    firstName: u.firstName,
    lastName: u.lastName ?? null,
    fullName: fullName(u.firstName, u.lastName),
    email: u.email,
    phone: u.phone ?? null,
  };
}

/** A record by id, or null for a malformed or unknown id (tenant-filtered by the EM). */
export async function byId<T extends object>(em: EntityManager, entity: EntityName<T>, id: unknown): Promise<T | null> {
  if (typeof id !== 'string' || !/^[0-9a-f]{24}$/.test(id)) return null;
  return em.findOne(entity, { _id: id } as never);
}

/** A manifest's automation loader: the record by id (null for an unknown one) and what `context` makes of it. */
export const rowLoader =
  <T extends object, R>(entity: EntityName<T>, context: (row: T, em: EntityManager) => R | Promise<R>) =>
  async (em: EntityManager, id: string): Promise<R | null> => {
    const row = await byId(em, entity, id);
    return row ? context(row, em) : null;
  };

type LinkedRow = Record<'leadId' | 'dealId' | 'personId' | 'companyId' | 'ownerId', string | null | undefined>;

/** The automation loader of a record linked to a lead, deal, person and company with an owner: its namespace, links. */
export const linkedRecordLoader = <T extends LinkedRow>(entity: EntityName<T>, namespace: string) =>
  rowLoader(entity, (row) => {
    const { leadId, dealId, personId, companyId, ownerId } = row;
    return { namespaces: { [namespace]: plainRecord(row) }, links: { leadId, dealId, personId, companyId, ownerId } };
  });
