/**
 * The Temporal payload key and the codec server token of the embedded stack, generated once into
 * the data folder (like the Meilisearch master key) unless the environment sets them:
 * `<dataDir>/temporal-payload-keys` (TEMPORAL_PAYLOAD_KEYS) and `<dataDir>/temporal-codec-token`
 * (TEMPORAL_CODEC_AUTH_TOKEN). Losing the key file makes the encrypted histories unreadable.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function keptOrNew(dataDir: string, file: string, make: () => string): string {
  const full = path.join(dataDir, file);
  if (fs.existsSync(full)) {
    const saved = fs.readFileSync(full, 'utf8').trim();
    if (saved) return saved;
  }
  const value = make();
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(full, value + '\n', { mode: 0o600 });
  return value;
}

export interface CodecSecrets {
  TEMPORAL_PAYLOAD_KEYS: string;
  TEMPORAL_CODEC_AUTH_TOKEN: string;
}

export function resolveCodecSecrets(dataDir: string, env: NodeJS.ProcessEnv): CodecSecrets {
  return {
    TEMPORAL_PAYLOAD_KEYS:
      env.TEMPORAL_PAYLOAD_KEYS?.trim() ||
      keptOrNew(dataDir, 'temporal-payload-keys', () => `k1:${randomBytes(32).toString('base64')}`),
    TEMPORAL_CODEC_AUTH_TOKEN:
      env.TEMPORAL_CODEC_AUTH_TOKEN?.trim() ||
      keptOrNew(dataDir, 'temporal-codec-token', () => randomBytes(24).toString('hex')),
  };
}
