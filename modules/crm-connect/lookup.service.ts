import { raw } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { Company } from '../companies';
import { Lead } from '../leads';
import { Person } from '../people';
import { likePattern } from '../../platform/shared/listing';
import { matchesPhone, normalizePhone, tailDigits, type NormalizedPhone } from './phone';
import type { LookupResultView } from './crm-connect.views';

export interface LookupMatch {
  entityType: 'person' | 'company' | 'lead';
  _id: string;
  name: string;
  matchedOn: 'phone' | 'email';
  value: string;
}

/** Candidates per entity type read from the database before the exact rule filters them. */
const CANDIDATES = 200;
/** Matches returned per entity type. */
export const MATCHES_PER_TYPE = 25;

const personName = (p: Person): string => [p.firstName, p.lastName].filter(Boolean).join(' ');

// Digits-only text of a column: a cheap pre-filter on the last digits; phonesMatch decides.
const digitsOf = (column: string) => raw((alias: string) => `regexp_replace(${alias}.${column}::text, '\\D', '', 'g')`);
const lowerText = (column: string) => raw((alias: string) => `lower(${alias}.${column}::text)`);

async function byPhone(ctx: Ctx, wanted: NormalizedPhone): Promise<LookupMatch[]> {
  const tail = `%${tailDigits(wanted)}%`;
  const opts = { limit: CANDIDATES, orderBy: { createdAt: 'desc' as const } };
  const people = await ctx.em.find(Person, { [digitsOf('phones')]: { $like: tail } }, opts);
  const companies = await ctx.em.find(Company, { [digitsOf('phone')]: { $like: tail } }, opts);
  const leads = await ctx.em.find(Lead, { [digitsOf('phone')]: { $like: tail } }, opts);
  const out: LookupMatch[] = [];
  for (const p of people) {
    const hit = p.phones.find((ph) => matchesPhone(wanted, ph.phone));
    if (hit) out.push({ entityType: 'person', _id: p._id, name: personName(p), matchedOn: 'phone', value: hit.phone });
  }
  for (const c of companies)
    if (matchesPhone(wanted, c.phone))
      out.push({ entityType: 'company', _id: c._id, name: c.name, matchedOn: 'phone', value: c.phone! });
  for (const l of leads)
    if (matchesPhone(wanted, l.phone))
      out.push({ entityType: 'lead', _id: l._id, name: l.title, matchedOn: 'phone', value: l.phone! });
  return out;
}

async function byEmail(ctx: Ctx, email: string): Promise<LookupMatch[]> {
  const wanted = email.trim().toLowerCase();
  const opts = { limit: CANDIDATES, orderBy: { createdAt: 'desc' as const } };
  const people = await ctx.em.find(Person, { [lowerText('emails')]: { $like: likePattern(`"${wanted}"`) } }, opts);
  const companies = await ctx.em.find(Company, { [lowerText('email')]: wanted }, opts);
  const leads = await ctx.em.find(Lead, { [lowerText('email')]: wanted }, opts);
  const out: LookupMatch[] = [];
  for (const p of people) {
    const hit = p.emails.find((e) => e.email.toLowerCase() === wanted);
    if (hit) out.push({ entityType: 'person', _id: p._id, name: personName(p), matchedOn: 'email', value: hit.email });
  }
  for (const c of companies)
    out.push({ entityType: 'company', _id: c._id, name: c.name, matchedOn: 'email', value: c.email! });
  for (const l of leads)
    out.push({ entityType: 'lead', _id: l._id, name: l.title, matchedOn: 'email', value: l.email! });
  return out;
}

function capPerType(matches: LookupMatch[]): LookupMatch[] {
  const seen: Record<string, number> = {};
  return matches.filter((m) => (seen[m.entityType] = (seen[m.entityType] ?? 0) + 1) <= MATCHES_PER_TYPE);
}

export function parsePhone(phone: string, field = 'phone'): NormalizedPhone {
  const normalized = normalizePhone(phone);
  if (!normalized)
    throw validation(
      `${field}: must be a phone number (optional + or 00, then 4-20 digits; spaces, dashes, dots and parentheses allowed)`,
      [{ path: field, error: 'not a phone number' }],
    );
  return normalized;
}

/** People first, then companies, then leads; newest first within each type. */
export async function lookup(ctx: Ctx, input: { phone?: string; email?: string }): Promise<LookupResultView> {
  if ((input.phone === undefined) === (input.email === undefined))
    throw validation('give exactly one of phone or email');
  const matches =
    input.phone !== undefined ? await byPhone(ctx, parsePhone(input.phone)) : await byEmail(ctx, input.email!);
  return { matches: capPerType(matches) };
}

/** The first record a telephony number belongs to: a person, else a company, else a lead. */
export async function firstPhoneMatch(ctx: Ctx, phone: string): Promise<LookupMatch | null> {
  const normalized = normalizePhone(phone);
  if (!normalized) return null;
  return (await byPhone(ctx, normalized))[0] ?? null;
}
