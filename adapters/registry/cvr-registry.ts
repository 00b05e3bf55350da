import { DomainError } from '../../platform/errors';
import { safeFetch as defaultFetch, type SafeFetch } from '../../platform/net/safe-fetch';
import { normalizeDomain, normalizeProfileUrl } from '../../platform/shared/normalize';
import {
  REGISTRY_NOT_CONFIGURED,
  type CompanyRegistry,
  type LookupEnv,
  type RegistryCompany,
} from '../../platform/ports/registry.port';

export const REGISTRY_TIMEOUT_MS = 10_000;
const REGISTRY_MAX_BYTES = 512 * 1024;

const text = (v: unknown, max = 500): string | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : null;
};

/** cvrapi.dk-style answer → RegistryCompany; null when it carries no company. */
export function parseRegistryAnswer(json: unknown): RegistryCompany | null {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return null;
  const o = json as Record<string, unknown>;
  if (o.error !== undefined && o.error !== null && o.error !== false) return null;
  const cvr = text(o.vat ?? o.cvr, 50);
  const name = text(o.name, 300);
  if (!cvr || !name) return null;
  const employees = typeof o.employees === 'number' ? o.employees : Number.parseInt(String(o.employees ?? ''), 10);
  const website = normalizeDomain(text(o.website ?? o.homepage, 2048));
  const logo = text(o.logo ?? o.logoUrl, 2048);
  return {
    cvr,
    name,
    address: text(o.address),
    zip: text(o.zipcode ?? o.zip, 20),
    city: text(o.city, 200),
    phone: text(o.phone, 50),
    email: text(o.email, 320),
    industry: text(o.industrydesc ?? o.industry, 200),
    employees: Number.isInteger(employees) && employees >= 0 ? employees : null,
    website: website ? `https://${website}` : null,
    logoUrl: logo && /^https:\/\//i.test(logo) ? logo : null,
    profileUrl: normalizeProfileUrl(text(o.linkedin ?? o.profile ?? o.profileUrl, 2048))?.url ?? null,
  };
}

/**
 * HTTP adapter (README "Company registry"): `GET CVR_API_URL?<vat|name|search>=…&country=…`
 * with `Authorization: Bearer CVR_API_TOKEN` when a token is set; JSON answer in the cvrapi.dk
 * shape (`vat`, `name`, `address`, `zipcode`, `city`, `phone`, `email`, `industrydesc`,
 * `employees`; optional `website`, `logo`, `linkedin`). 404 or `{ "error": … }` = no match.
 */
export function createHttpRegistry(
  settings: LookupEnv,
  options: { allowHosts?: readonly string[]; fetch?: SafeFetch } = {},
): CompanyRegistry {
  if (!settings.cvrApiUrl) {
    return {
      configured: false,
      find: () => Promise.reject(new DomainError('not_configured', REGISTRY_NOT_CONFIGURED)),
    };
  }
  const base = settings.cvrApiUrl;
  const fetch = options.fetch ?? defaultFetch;
  return {
    configured: true,
    async find(query) {
      let url: URL;
      try {
        url = new URL(base);
      } catch {
        throw new DomainError('not_configured', 'company registry is misconfigured: CVR_API_URL is not a URL');
      }
      const [key, value] = Object.entries(query)[0] as [string, string];
      url.searchParams.set(key === 'cvr' ? 'vat' : key, value);
      url.searchParams.set('country', settings.cvrCountry);
      let res;
      try {
        res = await fetch(url.href, {
          headers: {
            accept: 'application/json',
            'user-agent': 'crm-workspace-api registry lookup',
            ...(settings.cvrApiToken ? { authorization: `Bearer ${settings.cvrApiToken}` } : {}),
          },
          timeoutMs: REGISTRY_TIMEOUT_MS,
          maxBytes: REGISTRY_MAX_BYTES,
          allowHosts: options.allowHosts,
        });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'validation') {
          throw new DomainError(
            'not_configured',
            `company registry is misconfigured: ${err.message} (add the host to OUTBOUND_ALLOW_HOSTS if it is private)`,
          );
        }
        if (err instanceof DomainError) throw new DomainError('upstream_failed', `company registry: ${err.message}`);
        throw err;
      }
      if (res.status === 404) return null;
      if (res.status === 401 || res.status === 403)
        throw new DomainError(
          'not_configured',
          `company registry refused the credentials (${res.status}): check CVR_API_TOKEN`,
        );
      if (res.status < 200 || res.status >= 300)
        throw new DomainError('upstream_failed', `company registry answered ${res.status}`);
      let json: unknown;
      try {
        json = JSON.parse(res.body.toString('utf8'));
      } catch {
        throw new DomainError('upstream_failed', 'company registry answered with something that is not JSON');
      }
      return parseRegistryAnswer(Array.isArray(json) ? json[0] : json);
    },
  };
}
