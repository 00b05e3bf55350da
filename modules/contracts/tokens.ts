import { createHash, randomBytes } from 'node:crypto';

/** A signer's link token: 256 random bits, base64url. Only its SHA-256 is stored. */
export function newSignerToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Shape check before any lookup: 43 base64url characters. */
export const isTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);
