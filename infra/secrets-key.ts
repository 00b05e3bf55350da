import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The given CRM_SECRETS_KEY, else the one kept in `<dataDir>/secrets-key`, else a new random one saved there. */
export function resolveSecretsKey(dataDir: string, given?: string): string {
  if (given) return given;
  const file = path.join(dataDir, 'secrets-key');
  if (fs.existsSync(file)) {
    const saved = fs.readFileSync(file, 'utf8').trim();
    if (saved) return saved;
  }
  const key = randomBytes(32).toString('hex');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}
