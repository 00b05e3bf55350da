/**
 * Canonical forms of the keys records are matched on: professional-network profile URLs,
 * web domains and e-mail domains. Pure functions, so lookups, writes and tests agree.
 */

/** Mail providers whose domain says nothing about the company behind an address. */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'hotmail.com',
  'hotmail.dk',
  'hotmail.co.uk',
  'outlook.com',
  'outlook.dk',
  'live.com',
  'live.dk',
  'msn.com',
  'yahoo.com',
  'yahoo.dk',
  'yahoo.co.uk',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'mail.com',
  'protonmail.com',
  'proton.me',
  'pm.me',
  'zoho.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'jubii.dk',
  'mail.dk',
  'tdcadsl.dk',
  'stofanet.dk',
  'get2net.dk',
  'youmail.dk',
  'c.dk',
  'privat.dk',
  'telia.com',
  'online.no',
  'qq.com',
  '163.com',
]);

const DOMAIN_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;

/**
 * A bare, lower-case host name from a domain, a URL or an e-mail-like value: `https://www.Acme.dk/x`
 * → `acme.dk`. Null when nothing domain-like remains.
 */
export function normalizeDomain(input: string | null | undefined): string | null {
  if (!input) return null;
  let value = input.trim().toLowerCase();
  if (!value) return null;
  value = value.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  value = value.replace(/^[^/?#]*@/, '');
  value = value
    .replace(/[/?#].*$/, '')
    .replace(/:\d*$/, '')
    .replace(/\.$/, '');
  value = value.replace(/^www\d?\./, '');
  return DOMAIN_RE.test(value) ? value : null;
}

/** The domain part of an e-mail address (normalised), or null. */
export function emailDomain(email: string | null | undefined): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at > 0 ? normalizeDomain(email.slice(at + 1)) : null;
}

/** A domain that identifies a company (not a free-mail provider). */
export const isCompanyDomain = (domain: string | null): domain is string => !!domain && !FREE_MAIL_DOMAINS.has(domain);

const PROFILE_HOSTS: Record<string, string> = { 'linkedin.com': 'linkedin.com' };

export interface NormalizedProfile {
  /** Canonical URL stored on records and compared on lookups: https, no www/locale host, no query. */
  url: string;
  /** The profile's own name (last path segment), e.g. `acme-aps`. */
  handle: string;
  /** `company`, `person` or null when the path does not say. */
  kind: 'company' | 'person' | null;
}

/**
 * A professional-network profile URL in canonical form. For the professional network the locale
 * sub-domain (dk., de.) and extra path parts (/about, /posts) are dropped:
 * `https://dk.linkedin.com/company/Acme/about/`
 * and `linkedin.com/company/acme` are the same profile. Null when the value is not a profile URL.
 */
export function normalizeProfileUrl(input: string | null | undefined): NormalizedProfile | null {
  if (!input) return null;
  let raw = input.trim();
  if (!raw) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) raw = `https://${raw}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  let host = url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
  if (!DOMAIN_RE.test(host)) return null;
  let segments = url.pathname
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s).toLowerCase();
      } catch {
        return s.toLowerCase();
      }
    });
  const network = Object.keys(PROFILE_HOSTS).find((h) => host === h || host.endsWith(`.${h}`));
  let kind: NormalizedProfile['kind'] = null;
  if (network) {
    host = PROFILE_HOSTS[network]!;
    const [section, slug] = segments;
    if (!section || !slug) return null;
    if (section === 'company' || section === 'school' || section === 'showcase') kind = 'company';
    else if (section === 'in' || section === 'pub') kind = 'person';
    else return null;
    segments = [section, slug];
  }
  if (!segments.length) return null;
  const path = segments.map((s) => encodeURIComponent(s)).join('/');
  return { url: `https://${host}/${path}`, handle: segments[segments.length - 1]!, kind };
}

/** A handle as sent (`@acme`, `Acme`) in the form stored beside observations. */
export function normalizeHandle(input: string | null | undefined): string | null {
  const value = input?.trim().replace(/^@/, '').toLowerCase();
  return value ? value.slice(0, 200) : null;
}

/**
 * The website's bare host in SQL, matching normalizeDomain for stored values. The same text is
 * indexed by migration 20261123220700 (an expression index is only used for an identical expression).
 */
export const WEBSITE_DOMAIN_SQL = (alias: string): string =>
  `regexp_replace(regexp_replace(regexp_replace(lower(${alias}."website"), '^[a-z][a-z0-9+.-]*://', ''), '[^a-z0-9.:-].*$', ''), '^www[0-9]{0,1}\\.|:[0-9]*$|\\.$', '', 'g')`;
