/**
 * Value formatting for placeholders, always with explicit locale, currency and time zone (never
 * the host's defaults), so a template renders the same on every worker.
 */
import { parseDateInput, wallDate, wallTime, zonedParts } from './zoned-time.pure';

export interface FormatOptions {
  /** BCP 47 locale for numbers and currency; default da-DK. */
  locale?: string;
  /** ISO 4217 code; default DKK. */
  currency?: string;
  /** IANA zone for dates; default Europe/Copenhagen. */
  timezone?: string;
}

export const DEFAULT_FORMAT = { locale: 'da-DK', currency: 'DKK', timezone: 'Europe/Copenhagen' } as const;

/** Intl separates "1.234,50 kr." with a no-break space; plain spaces keep SMS in the GSM-7 alphabet. */
const plainSpaces = (s: string): string => s.replace(/[\u00a0\u202f]/g, ' ');

/** A finite number from a number or a plain numeric string ("1234.5"); null otherwise. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function formatCurrency(value: unknown, opts: FormatOptions = {}, currency?: string): string | null {
  const n = toNumber(value);
  if (n === null) return null;
  try {
    const fmt = new Intl.NumberFormat(opts.locale ?? DEFAULT_FORMAT.locale, {
      style: 'currency',
      currency: currency ?? opts.currency ?? DEFAULT_FORMAT.currency,
    });
    return plainSpaces(fmt.format(n));
  } catch {
    return null;
  }
}

export function formatNumber(value: unknown, opts: FormatOptions = {}): string | null {
  const n = toNumber(value);
  if (n === null) return null;
  try {
    return plainSpaces(
      new Intl.NumberFormat(opts.locale ?? DEFAULT_FORMAT.locale, { maximumFractionDigits: 2 }).format(n),
    );
  } catch {
    return null;
  }
}

/** `date` → YYYY-MM-DD, `datetime` → YYYY-MM-DD HH:mm, `time` → HH:mm, in the time zone. */
export function formatDate(
  value: unknown,
  kind: 'date' | 'datetime' | 'time',
  opts: FormatOptions = {},
): string | null {
  const timeZone = opts.timezone ?? DEFAULT_FORMAT.timezone;
  try {
    const d = parseDateInput(value, timeZone);
    if (!d) return null;
    const p = zonedParts(d.ms, timeZone);
    const date = wallDate(p);
    const time = wallTime(p);
    return kind === 'date' ? date : kind === 'time' ? time : `${date} ${time}`;
  } catch {
    return null;
  }
}

/** How a raw context value appears inside text. */
export function stringify(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.toISOString() : '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
