import { raw } from '@mikro-orm/core';
import { z } from 'zod';
import type { Ctx } from '../../platform/context';
import { WEBSITE_DOMAIN_SQL, type NormalizedProfile } from '../../platform/shared/normalize';
import { domainQuery, profileQuery } from '../../platform/shared/match-keys.schemas';
import { Company } from './company.entity';
import { companyView } from './companies.schemas';
import { serializeCompany } from './companies.service';

// GET /companies/lookup and the workspace company the registry match (lookups) starts from: a query on companies, so
// companies owns it and the lookups module imports it (not the other way round).

const websiteDomain = raw((alias: string) => WEBSITE_DOMAIN_SQL(alias));
const emailDomainSql = raw((alias: string) => `split_part(lower(${alias}."email"), '@', 2)`);

const none = { data: null, matched: false, matchedOn: null } as const;

export const companyLookupQuery = z
  .strictObject({
    profile: profileQuery.optional().describe('professional-network profile URL of the company'),
    domain: domainQuery.optional().describe('web domain or URL (www. and paths ignored)'),
  })
  .refine((q) => q.profile || q.domain, { message: 'give profile or domain', path: ['profile'] });

/** GET /companies/lookup: the matching workspace company, or null (no match is not an error). */
export const companyLookupView = z.object({
  data: companyView.nullable(),
  matched: z.boolean(),
  matchedOn: z
    .enum(['profile', 'domain'])
    .nullable()
    .describe('profile, or domain (website, else the company e-mail domain); null without a match'),
});
export type CompanyLookupView = z.infer<typeof companyLookupView>;

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
