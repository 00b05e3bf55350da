import type { Mailbox } from '../../platform/ports/messaging.port';

/**
 * Pure address rules for outgoing messages (unit-tested as tables). E-mail: a dot-atom local part
 * (the form every mail system accepts; quoted local parts are refused) and a domain of at least two
 * labels; optional display name as `Name <address>`. Phones: E.164 after removing formatting.
 */

export const MAX_EMAIL_LENGTH = 254;
export const MAX_LOCAL_PART = 64;
export const MAX_DISPLAY_NAME = 200;
export const MAX_SENDER_ID = 11;

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;
const TLD = /^(\p{L}{2,63}|xn--[a-z0-9-]{1,59})$/iu;

/** Why `address` is not a deliverable mailbox address, or null. */
export function emailProblem(address: string): string | null {
  if (address.length > MAX_EMAIL_LENGTH) return `must be at most ${MAX_EMAIL_LENGTH} characters`;
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return 'is not an e-mail address';
  const local = address.slice(0, at);
  const labels = address.slice(at + 1).split('.');
  if (local.length > MAX_LOCAL_PART) return `local part must be at most ${MAX_LOCAL_PART} characters`;
  if (!LOCAL.test(local)) return 'is not an e-mail address';
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TLD.test(labels[labels.length - 1]!))
    return 'is not an e-mail address';
  return null;
}

/** `a@b.dk` or `Name <a@b.dk>` (name may be "quoted"); header-breaking characters are refused. */
export function parseMailbox(raw: string): { mailbox: Mailbox } | { error: string } {
  if (/[\r\n\0]/.test(raw)) return { error: 'must not contain line breaks' };
  const input = raw.trim();
  const named = /^(.*?)\s*<([^<>]*)>$/.exec(input);
  const address = (named ? named[2]! : input).trim();
  let name = named ? named[1]!.trim() : '';
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1).trim();
  if (/[<>]/.test(name)) return { error: 'is not an e-mail address' };
  if (name.length > MAX_DISPLAY_NAME) return { error: `display name must be at most ${MAX_DISPLAY_NAME} characters` };
  const problem = emailProblem(address);
  if (problem) return { error: problem };
  return { mailbox: name ? { address, name } : { address } };
}

export const formatMailbox = (m: Mailbox): string => (m.name ? `${m.name} <${m.address}>` : m.address);

/**
 * E.164 (+ and 7-15 digits, no leading 0) from a written number: spaces, dashes, dots, slashes and
 * parentheses are dropped and a leading 00 becomes +. A number without a country code gets
 * `defaultCountryCode` (its one national trunk 0 dropped), or is refused.
 */
export function normalizePhoneNumber(raw: string, defaultCountryCode?: string): { phone: string } | { error: string } {
  let s = raw.trim().replace(/[\s\-./()]/g, '');
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  if (!/^\+?\d+$/.test(s)) return { error: 'is not a phone number' };
  if (!s.startsWith('+')) {
    if (!defaultCountryCode)
      return { error: 'must be an international number starting with + or 00 (e.g. +4512345678)' };
    s = `+${defaultCountryCode}${s.replace(/^0/, '')}`;
  }
  if (!/^\+[1-9]\d{6,14}$/.test(s)) return { error: 'must be an E.164 number: + and 7 to 15 digits' };
  return { phone: s };
}

/**
 * SMS sender: a phone number (normalised like recipients) or an alphanumeric sender id of at most
 * 11 characters with at least one letter (operators reject all-digit ids as invalid numbers).
 */
export function normalizeSmsSender(raw: string, defaultCountryCode?: string): { from: string } | { error: string } {
  const s = raw.trim();
  if (/^[+\d\s\-./()]+$/.test(s)) {
    const phone = normalizePhoneNumber(s, defaultCountryCode);
    return 'phone' in phone ? { from: phone.phone } : phone;
  }
  if (s.length > MAX_SENDER_ID)
    return { error: `an alphanumeric sender id must be at most ${MAX_SENDER_ID} characters` };
  if (!/^[A-Za-z0-9 ._&-]+$/.test(s))
    return { error: 'an alphanumeric sender id may only contain letters A-Z, digits, space and . _ & -' };
  return { from: s };
}
