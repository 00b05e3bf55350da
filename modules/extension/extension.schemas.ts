import { z } from 'zod';
import { normalizeDomain, normalizeHandle, normalizeProfileUrl } from '../../platform/shared/normalize';

export const MAX_OBSERVATIONS = 500;

const fact = (max: number) => z.string().trim().min(1).max(max).optional();

const observation = z
  .strictObject({
    profile: z.string().trim().min(1, 'profile is required').max(2048),
    kind: z.enum(['company', 'person']).optional().describe('inferred from the profile URL when omitted'),
    handle: z.string().trim().min(1).max(200).optional(),
    name: fact(300),
    headline: fact(500),
    title: fact(200),
    companyName: fact(300),
    companyProfile: z.string().trim().max(2048).optional(),
    domain: z.string().trim().max(2048).optional(),
    location: fact(200),
    industry: fact(200),
    employees: z.number().int().min(0).max(10_000_000).optional(),
    observedAt: z.coerce.date({ message: 'observedAt must be an ISO date' }).optional(),
  })
  .transform((o, ctx) => {
    const profile = normalizeProfileUrl(o.profile);
    if (!profile) {
      ctx.addIssue({
        code: 'custom',
        path: ['profile'],
        message: 'must be a profile URL such as https://www.linkedin.com/in/jane-doe',
      });
      return z.NEVER;
    }
    const kind = o.kind ?? profile.kind;
    if (!kind) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: 'give kind (company or person): the profile URL does not say',
      });
      return z.NEVER;
    }
    const companyProfile = o.companyProfile ? normalizeProfileUrl(o.companyProfile)?.url : undefined;
    if (o.companyProfile && !companyProfile) {
      ctx.addIssue({ code: 'custom', path: ['companyProfile'], message: 'must be a profile URL' });
      return z.NEVER;
    }
    const domain = o.domain ? normalizeDomain(o.domain) : undefined;
    if (o.domain && !domain) {
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'must be a domain such as acme.dk' });
      return z.NEVER;
    }
    const observedAt = o.observedAt && o.observedAt.getTime() <= Date.now() + 60_000 ? o.observedAt : new Date();
    const { profile: _p, kind: _k, handle, observedAt: _o, companyProfile: _c, domain: _d, ...facts } = o;
    return {
      profileUrl: profile.url,
      handle: normalizeHandle(handle) ?? profile.handle,
      kind,
      observedAt,
      facts: { ...facts, ...(companyProfile ? { companyProfile } : {}), ...(domain ? { domain } : {}) },
    };
  });

export type ObservationInput = z.output<typeof observation>;

export const observationsBody = z.strictObject({
  observations: z
    .array(observation)
    .min(1, 'observations must not be empty')
    .max(MAX_OBSERVATIONS, `at most ${MAX_OBSERVATIONS} observations per request`),
});

export const contributionBody = z.strictObject({ enabled: z.boolean({ message: 'enabled must be true or false' }) });

export const networkQuery = z
  .strictObject({
    profile: z.string().trim().min(1).max(2048).optional().describe('profile URL'),
    handle: z.string().trim().min(1).max(200).optional().describe('profile handle (the last part of the profile URL)'),
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .transform((q, ctx) => {
    const profile = q.profile ? normalizeProfileUrl(q.profile) : null;
    if (q.profile && !profile) {
      ctx.addIssue({ code: 'custom', path: ['profile'], message: 'must be a profile URL' });
      return z.NEVER;
    }
    const handle = normalizeHandle(q.handle);
    if (!profile && !handle) {
      ctx.addIssue({ code: 'custom', path: ['profile'], message: 'give profile or handle' });
      return z.NEVER;
    }
    return { profileUrl: profile?.url ?? null, handle, page: q.page, limit: q.limit };
  });
