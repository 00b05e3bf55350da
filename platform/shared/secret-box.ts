import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DomainError } from '../errors';

/**
 * AES-256-GCM for secrets stored at rest (mailbox passwords). The key comes from CRM_SECRETS_KEY
 * (64 hex characters or base64 of 32 bytes); `npm start`/`npm test` generate one into the data folder.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>` (base64url). The associated data binds a ciphertext to
 * its row (e.g. the account id), so a sealed value copied to another row does not open.
 */

export const SECRETS_KEY_NOT_CONFIGURED =
  'stored credentials are not available: set CRM_SECRETS_KEY (64 hex characters; npm start generates one in the data folder)';

export function parseSecretsKey(raw: string | undefined): Buffer | null {
  const value = raw?.trim();
  if (!value) return null;
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('CRM_SECRETS_KEY must be 32 bytes: 64 hex characters or base64');
  return key;
}

function requireKey(key: Buffer | null | undefined): Buffer {
  if (!key) throw new DomainError('not_configured', SECRETS_KEY_NOT_CONFIGURED);
  return key;
}

export function sealSecret(plain: string, key: Buffer | null | undefined, aad: string): string {
  const k = requireKey(key);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', k, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
    '.',
  );
}

export function openSecret(sealed: string, key: Buffer | null | undefined, aad: string): string {
  const k = requireKey(key);
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || ct === undefined)
    throw new Error('secret-box: not a sealed value');
  try {
    const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new DomainError(
      'not_configured',
      'stored credentials cannot be decrypted with this CRM_SECRETS_KEY (was the key changed?)',
    );
  }
}
