import { z } from 'zod';
import { domainQuery, profileQuery } from '../../platform/shared/match-keys.schemas';

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
