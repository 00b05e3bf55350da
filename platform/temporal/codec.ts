/**
 * Payload encryption for everything this product stores in Temporal (workflow inputs and results,
 * activity inputs and results, signals, updates, queries, memo, summaries): AES-256-GCM over the
 * serialized Payload, key id in the payload metadata. Keys come from TEMPORAL_PAYLOAD_KEYS
 * (`kid1:base64key,kid2:base64key`): the last one encrypts, all decrypt, so a key is rotated by
 * appending a new one and dropping the old one once no open history needs it. Payloads that are
 * not encrypted (histories from before the codec) pass through decode unchanged.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

export interface PayloadKey {
  id: string;
  key: Buffer;
}

export class PayloadKeyError extends Error {}

/** Parses `kid1:base64key,kid2:base64key` (32-byte keys). Throws with a message naming the variable. */
export function parsePayloadKeys(raw: string, variable = 'TEMPORAL_PAYLOAD_KEYS'): PayloadKey[] {
  const keys = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : '';
      if (!KEY_ID_RE.test(id))
        throw new PayloadKeyError(
          `${variable}: each entry must be <keyId>:<base64 key> with a key id of letters, digits, _ . -`,
        );
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (key.length !== 32)
        throw new PayloadKeyError(
          `${variable}: key "${id}" must be 32 bytes (base64 of 32 random bytes), got ${key.length}`,
        );
      return { id, key };
    });
  if (keys.length === 0) throw new PayloadKeyError(`${variable} holds no key`);
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    throw new PayloadKeyError(`${variable}: key ids must be unique`);
  return keys;
}

/** A new `<keyId>:<base64 key>` entry (key id from the date, so rotations sort). */
export function generatePayloadKeyEntry(now = new Date()): string {
  const id = `k${now.toISOString().slice(0, 19).replace(/[-:T]/g, '')}`;
  return `${id}:${randomBytes(32).toString('base64')}`;
}

const text = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const str = (b: Uint8Array | null | undefined): string => (b ? Buffer.from(b).toString('utf8') : '');

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly encryptKey: PayloadKey;
  private readonly byId: Map<string, Buffer>;

  constructor(keys: readonly PayloadKey[]) {
    if (keys.length === 0) throw new PayloadKeyError('the payload codec needs at least one key');
    this.encryptKey = keys[keys.length - 1]!;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get keyId(): string {
    return this.encryptKey.id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encodeOne(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decodeOne(p));
  }

  encodeOne(payload: Payload): Payload {
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptKey.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return {
      metadata: { encoding: text(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text(this.encryptKey.id) },
      data: Buffer.concat([iv, body, cipher.getAuthTag()]),
    };
  }

  decodeOne(payload: Payload): Payload {
    if (str(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyId = str(payload.metadata?.[KEY_ID_METADATA]);
    const key = this.byId.get(keyId);
    if (!key)
      throw new PayloadKeyError(`payload encrypted with unknown key "${keyId}": add it to TEMPORAL_PAYLOAD_KEYS`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadKeyError('encrypted payload is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadKeyError(`payload does not decrypt with key "${keyId}" (wrong key or tampered data)`);
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

/** The codec from the environment value, or null when no keys are configured. */
export function payloadCodecFromEnv(raw: string | undefined): AesGcmPayloadCodec | null {
  return raw?.trim() ? new AesGcmPayloadCodec(parsePayloadKeys(raw)) : null;
}

/** `dataConverter` option for every Client and Worker of this product (undefined: plain JSON payloads). */
export function crmDataConverter(raw: string | undefined): { payloadCodecs: PayloadCodec[] } | undefined {
  const codec = payloadCodecFromEnv(raw);
  return codec ? { payloadCodecs: [codec] } : undefined;
}
