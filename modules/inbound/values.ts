/** Pure value rules of the inbound endpoints (no I/O), shared by the API schemas and the matcher. */

const INTEGER = /^-?\d+$/;
const ONE_SEPARATOR = /^-?\d+[.,]\d+$/;
const GROUPED_DOTS = /^-?\d{1,3}(\.\d{3})+$/;
const GROUPED_COMMAS = /^-?\d{1,3}(,\d{3})+$/;
const DOTS_THEN_COMMA = /^-?\d{1,3}(\.\d{3})+,\d+$/;
const COMMAS_THEN_DOT = /^-?\d{1,3}(,\d{3})+\.\d+$/;

/**
 * Parses a money amount written the Danish or the English way. Spaces are thousands separators;
 * with both `.` and `,` the last one is the decimal mark ("1.234,50", "1,234.50"); a single
 * separator is the decimal mark ("1234,50", "1.234" = 1.234); repeated ones group thousands
 * ("1.234.567"). Returns undefined for anything else (e.g. "abc", "1,2,3", "12.5kr").
 */
export function parseDecimal(input: string): number | undefined {
  const s = input.replace(/[\s\u00a0\u202f]/g, '');
  let normalized: string | undefined;
  if (INTEGER.test(s)) normalized = s;
  else if (ONE_SEPARATOR.test(s)) normalized = s.replace(',', '.');
  else if (GROUPED_DOTS.test(s)) normalized = s.replace(/\./g, '');
  else if (GROUPED_COMMAS.test(s)) normalized = s.replace(/,/g, '');
  else if (DOTS_THEN_COMMA.test(s)) normalized = s.replace(/\./g, '').replace(',', '.');
  else if (COMMAS_THEN_DOT.test(s)) normalized = s.replace(/,/g, '');
  if (normalized === undefined) return undefined;
  const value = Number(normalized);
  return Number.isFinite(value) ? value : undefined;
}

/** Tags as an array or one comma-separated string ("vip, web"); trimmed, empty entries dropped. */
export function splitTags(input: string | readonly string[]): string[] {
  const list = typeof input === 'string' ? input.split(',') : input;
  return list.map((t) => t.trim()).filter(Boolean);
}

/**
 * Free-mail providers: their domain says nothing about the sender's company, so an address there
 * never matches a company by domain. Kept short on purpose; extend when a market needs it.
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'hotmail.com',
  'hotmail.dk',
  'outlook.com',
  'outlook.dk',
  'live.com',
  'live.dk',
  'msn.com',
  'yahoo.com',
  'yahoo.dk',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.net',
  'mail.com',
  'mail.dk',
  'jubii.dk',
  'zoho.com',
  'yandex.com',
]);

/** Lower-cased domain of an e-mail address, or undefined when it has none. */
export function emailDomain(email: string | null | undefined): string | undefined {
  if (!email) return undefined;
  const at = email.lastIndexOf('@');
  const domain =
    at >= 0
      ? email
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : '';
  return domain.includes('.') ? domain : undefined;
}

/** Host of a website value without scheme, `www.`, port or path: "https://www.Acme.dk/x" → "acme.dk". */
export function websiteDomain(website: string | null | undefined): string | undefined {
  if (!website) return undefined;
  const host = website
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .split(/[/?#:]/)[0]!
    .replace(/^www\./, '');
  return host.includes('.') ? host : undefined;
}

/** The domain an e-mail address can match a company by, or undefined for free-mail and malformed addresses. */
export function companyDomainOf(email: string | null | undefined): string | undefined {
  const domain = emailDomain(email);
  return domain && !FREE_MAIL_DOMAINS.has(domain) ? domain : undefined;
}
