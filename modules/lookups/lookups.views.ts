import { z } from 'zod';
import { companyView } from '../companies';
import { personView } from '../people';
import { idView } from '../../platform/shared/views';

// The company and person lookups' views are the companies and people modules' (company-lookup.ts, person-lookup.ts).

/** A company as the national registry (or an enrichment source with the same contract) knows it. */
export const registryCompanyView = z.object({
  cvr: z.string().describe('registry number'),
  name: z.string(),
  address: z.string().nullable(),
  zip: z.string().nullable(),
  city: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  industry: z.string().nullable(),
  employees: z.number().int().nullable(),
  website: z.string().nullable(),
  logoUrl: z.string().nullable(),
  profileUrl: z.string().nullable().describe('professional-network profile URL (canonical form)'),
});
export type RegistryCompanyView = z.infer<typeof registryCompanyView>;

export const registryMatchView = z.object({
  data: registryCompanyView.nullable(),
  matched: z.boolean(),
  matchedOn: z
    .enum(['cvr', 'name', 'domain'])
    .nullable()
    .describe('cvr (through the workspace company the profile/domain found), name (exact) or domain'),
  companyId: idView.nullable().describe('the workspace company the profile or domain found, if any'),
});
export type RegistryMatchView = z.infer<typeof registryMatchView>;

const lookupStatus = z
  .enum(['updated', 'already_filled', 'not_found'])
  .describe('updated: something was filled; already_filled: nothing was empty; not_found: nothing found');

const webPresenceField = z.enum(['website', 'logoUrl', 'profileUrl']);

export const webPresenceView = z.object({
  status: lookupStatus,
  hint: z.string().describe('what was done or what to do next'),
  filled: z.array(webPresenceField),
  sources: z
    .partialRecord(webPresenceField, z.enum(['email_domain', 'registry']))
    .describe('field → where it came from'),
  company: companyView,
});
export type WebPresenceView = z.infer<typeof webPresenceView>;

export const avatarResultView = z.object({
  status: lookupStatus,
  hint: z.string().describe('what was done or what to do next'),
  source: z.enum(['gravatar']).nullable(),
  person: personView,
});
export type AvatarResultView = z.infer<typeof avatarResultView>;
