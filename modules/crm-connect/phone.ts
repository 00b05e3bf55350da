/**
 * Phone matching for crm-connect (pure rules, unit-tested):
 * 1. Spaces, dashes, parentheses and dots are removed; a leading "00" becomes "+".
 * 2. What is left must be an optional "+" followed by 4-20 digits, otherwise it is not a phone number.
 * 3. Two numbers match when their digits are equal; or, when at least one of them has no "+"
 *    (its country prefix may be missing) and both have at least 8 digits, when their last 8 digits are equal.
 *    Two international numbers ("+…") must be equal digit for digit.
 */
export interface NormalizedPhone {
  international: boolean;
  digits: string;
}

export const MATCH_TAIL_DIGITS = 8;

export function normalizePhone(raw: string): NormalizedPhone | null {
  let s = raw.trim().replace(/[\s\-().]/g, '');
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  const m = /^(\+?)(\d{4,20})$/.exec(s);
  if (!m) return null;
  return { international: m[1] === '+', digits: m[2]! };
}

export function phonesMatch(a: NormalizedPhone, b: NormalizedPhone): boolean {
  if (a.digits === b.digits) return true;
  if (a.international && b.international) return false;
  if (a.digits.length < MATCH_TAIL_DIGITS || b.digits.length < MATCH_TAIL_DIGITS) return false;
  return a.digits.slice(-MATCH_TAIL_DIGITS) === b.digits.slice(-MATCH_TAIL_DIGITS);
}

/** True when the stored value is a phone number matching `wanted`. */
export function matchesPhone(wanted: NormalizedPhone, stored: string | null | undefined): boolean {
  if (!stored) return false;
  const other = normalizePhone(stored);
  return other !== null && phonesMatch(wanted, other);
}

/** The digits a database pre-filter compares (last 8, or all when shorter): candidates, then phonesMatch decides. */
export const tailDigits = (p: NormalizedPhone): string => p.digits.slice(-MATCH_TAIL_DIGITS);
