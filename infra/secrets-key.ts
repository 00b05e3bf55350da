import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The given CRM_SECRETS_KEY, else the one kept in `<dataDir>/secrets-key`, else a new random one saved there. */
export function resolveSecretsKey(dataDir: string, given?: string): string {
  return given || keptKey(dataDir, 'secrets-key', 32);
}

/**
 * The key kept in `<dataDir>/<fileName>`, else a new random one of `bytes` bytes (as hex) saved there, readable by
 * the owner only.
 */
export function keptKey(dataDir: string, fileName: string, bytes: number): string {
  const file = path.join(dataDir, fileName);
  if (fs.existsSync(file)) {
    const saved = fs.readFileSync(file, 'utf8').trim();
    if (saved) return saved;
  }
  const key = randomBytes(bytes).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}
