import { z } from 'zod';
import { normalizeDomain, normalizeProfileUrl } from './normalize';

/** A stored profile link: canonical URL, '' or null clears; anything else that is not a profile URL is a 400. */
export const profileUrlField = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .nullable()
  .transform((value, ctx) => {
    if (value === null || value === '') return null;
    const profile = normalizeProfileUrl(value);
    if (!profile) {
      ctx.addIssue({ code: 'custom', message: 'must be a profile URL such as https://www.linkedin.com/company/acme' });
      return z.NEVER;
    }
    return profile.url;
  })
  .describe(
    'professional-network profile URL; stored in canonical form (https, no www or locale sub-domain, no query)',
  );

const profileQuery = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .transform((value, ctx) => {
    const profile = normalizeProfileUrl(value);
    if (!profile) {
      ctx.addIssue({ code: 'custom', message: 'must be a profile URL such as https://www.linkedin.com/in/jane-doe' });
      return z.NEVER;
    }
    return profile;
  });

const domainQuery = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .transform((value, ctx) => {
    const domain = normalizeDomain(value);
    if (!domain) {
      ctx.addIssue({ code: 'custom', message: 'must be a domain or URL such as acme.dk' });
      return z.NEVER;
    }
    return domain;
  });

export const companyLookupQuery = z
  .strictObject({
    profile: profileQuery.optional().describe('professional-network profile URL of the company'),
    domain: domainQuery.optional().describe('web domain or URL (www. and paths ignored)'),
  })
  .refine((q) => q.profile || q.domain, { message: 'give profile or domain', path: ['profile'] });

export const personLookupQuery = z.strictObject({
  profile: profileQuery.describe('professional-network profile URL of the person'),
});

export const cvrMatchQuery = z
  .strictObject({
    profile: profileQuery.optional().describe('professional-network profile URL of the company'),
    domain: domainQuery.optional().describe('web domain or URL'),
    name: z.string().trim().min(1).max(300).optional().describe('exact company name (case-insensitive)'),
  })
  .refine((q) => q.profile || q.domain || q.name, {
    message: 'give at least one of profile, domain, name',
    path: ['profile'],
  });
