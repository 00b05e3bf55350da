import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Subscription secrets: Standard Webhooks form (`whsec_` + base64 of 24 random bytes), shown in
 * full only when created or rotated, masked on every read, AES-256-GCM encrypted at rest when
 * SECRETS_ENCRYPTION_KEY is set (the key: 32 bytes as base64/hex, or any passphrase, hashed).
 */

export const generateSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export const maskWebhookSecret = (secret: string): string => `whsec_****${secret.slice(-4)}`;

function keyBytes(key: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(key)) return Buffer.from(key, 'hex');
  const b64 = Buffer.from(key, 'base64');
  if (b64.length === 32 && /^[A-Za-z0-9+/]{43}=?$/.test(key)) return b64;
  return createHash('sha256').update(key).digest();
}

/** `v1:<iv>:<tag>:<ciphertext>` (base64 parts) with a key, `plain:<secret>` without one. */
export function sealSecret(secret: string, key: string | undefined): string {
  if (!key) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${ct.toString('base64')}`;
}

export function openSecret(sealed: string, key: string | undefined): string {
  if (sealed.startsWith('plain:')) return sealed.slice(6);
  const [version, iv, tag, ct] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unreadable webhook secret');
  if (!key) throw new Error('webhook secret is encrypted but SECRETS_ENCRYPTION_KEY is not set');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
}
