import { z } from 'zod';
import { normalizeDomain, normalizeProfileUrl } from './normalize';
import { zClearableNormalized } from './zod-kit';

// The request fields of the keys records are matched on (normalize.ts): the company and person schemas store a
// profile link, the record lookups (companies, people) and the registry match (lookups) query by profile or domain.

/** A stored profile link: canonical URL, '' or null clears; anything else that is not a profile URL is a 400. */
export const profileUrlField = zClearableNormalized(
  2048,
  (value) => normalizeProfileUrl(value)?.url ?? null,
  'must be a profile URL such as https://www.linkedin.com/company/acme',
).describe('professional-network profile URL; stored in canonical form (https, no www or locale sub-domain, no query)');

/** A key to look up: 1 to 2048 characters that `normalize` turns into the key, else a 400 with `message`. */
const lookupKey = <K>(normalize: (value: string) => K | null, message: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .transform((value, ctx) => {
      const key = normalize(value);
      if (!key) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return key;
    });

/** A profile URL to look up, in canonical form. */
export const profileQuery = lookupKey(
  normalizeProfileUrl,
  'must be a profile URL such as https://www.linkedin.com/in/jane-doe',
);

/** A web domain (or URL) to look up, as a bare host. */
export const domainQuery = lookupKey(normalizeDomain, 'must be a domain or URL such as acme.dk');
