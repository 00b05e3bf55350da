import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * A presented secret against the expected one (webhook secrets, the codec server's token, SMS webhook hashes):
 * equal-length digests, so the comparison takes the same time whatever the input (its length included). A missing
 * secret, or an empty expected one, never matches.
 */
export function secretMatches(provided: string | undefined, expected: string): boolean {
  const same = timingSafeEqual(digest(provided ?? ''), digest(expected));
  return same && provided !== undefined && expected !== '';
}
