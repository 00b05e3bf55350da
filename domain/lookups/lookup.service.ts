import { raw } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { Company, serializeCompany } from '../../modules/companies';
import { Person, serializePerson } from '../../modules/people';
import type { NormalizedProfile } from './normalize';
import type { CompanyLookupView, PersonLookupView } from './lookups.views';

/**
 * The website's bare host in SQL, matching normalizeDomain for stored values. The same text is
 * indexed by migration 20261123220700 (an expression index is only used for an identical expression).
 */
export const WEBSITE_DOMAIN_SQL = (alias: string): string =>
  `regexp_replace(regexp_replace(regexp_replace(lower(${alias}."website"), '^[a-z][a-z0-9+.-]*://', ''), '[^a-z0-9.:-].*$', ''), '^www[0-9]{0,1}\\.|:[0-9]*$|\\.$', '', 'g')`;

const websiteDomain = raw((alias: string) => WEBSITE_DOMAIN_SQL(alias));
const emailDomainSql = raw((alias: string) => `split_part(lower(${alias}."email"), '@', 2)`);

const none = { data: null, matched: false, matchedOn: null } as const;

/** The oldest company with the profile link, else with the website (or e-mail) domain. */
export async function findCompanyByKeys(
  ctx: Ctx,
  keys: { profile?: NormalizedProfile; domain?: string },
): Promise<{ company: Company; matchedOn: 'profile' | 'domain' } | null> {
  const opts = { orderBy: { createdAt: 'asc' as const } };
  if (keys.profile) {
    const company = await ctx.em.findOne(Company, { profileUrl: keys.profile.url }, opts);
    if (company) return { company, matchedOn: 'profile' };
  }
  if (keys.domain) {
    const byWebsite = await ctx.em.findOne(Company, { [websiteDomain]: keys.domain }, opts);
    if (byWebsite) return { company: byWebsite, matchedOn: 'domain' };
    const byEmail = await ctx.em.findOne(Company, { [emailDomainSql]: keys.domain }, opts);
    if (byEmail) return { company: byEmail, matchedOn: 'domain' };
  }
  return null;
}

export async function lookupCompany(
  ctx: Ctx,
  keys: { profile?: NormalizedProfile; domain?: string },
): Promise<CompanyLookupView> {
  const hit = await findCompanyByKeys(ctx, keys);
  return hit ? { data: serializeCompany(hit.company), matched: true, matchedOn: hit.matchedOn } : none;
}

export async function lookupPerson(ctx: Ctx, keys: { profile: NormalizedProfile }): Promise<PersonLookupView> {
  const person = await ctx.em.findOne(Person, { profileUrl: keys.profile.url }, { orderBy: { createdAt: 'asc' } });
  return person ? { data: serializePerson(person), matched: true, matchedOn: 'profile' } : none;
}
