import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  generatePayloadKeyEntry,
  KEY_ID_METADATA,
  parsePayloadKeys,
  PayloadKeyError,
} from '../../../platform/temporal/codec';

const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const str = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');
const plain = () =>
  defaultPayloadConverter.toPayload({ email: 'ada@example.com', phone: '+4512345678', nested: [1, 2, 3] });

describe('AES-256-GCM payload codec', () => {
  it('round-trips payloads; the ciphertext carries the key id and no clear text', async () => {
    const codec = new AesGcmPayloadCodec(parsePayloadKeys(key('k1')));
    const [enc] = await codec.encode([plain()]);
    expect(str(enc!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(str(enc!.metadata![KEY_ID_METADATA])).toBe('k1');
    expect(Buffer.from(enc!.data!).toString('latin1')).not.toContain('ada@example.com');
    expect(Object.keys(enc!.metadata!).sort()).toEqual([KEY_ID_METADATA, 'encoding'].sort());
    const [dec] = await codec.decode([enc!]);
    expect(defaultPayloadConverter.fromPayload(dec!)).toEqual({
      email: 'ada@example.com',
      phone: '+4512345678',
      nested: [1, 2, 3],
    });
    // A fresh IV each time: equal inputs give different ciphertexts.
    const [again] = await codec.encode([plain()]);
    expect(Buffer.compare(Buffer.from(again!.data!), Buffer.from(enc!.data!))).not.toBe(0);
  });

  it('rotation: the newest key encrypts, older keys still decrypt', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const old = new AesGcmPayloadCodec(parsePayloadKeys(k1));
    const [oldPayload] = await old.encode([plain()]);
    const rotated = new AesGcmPayloadCodec(parsePayloadKeys(`${k1},${k2}`));
    const [newPayload] = await rotated.encode([plain()]);
    expect(str(newPayload!.metadata![KEY_ID_METADATA])).toBe('k2');
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([oldPayload!]))[0]!)).toMatchObject({
      email: 'ada@example.com',
    });
    // Once k1 is dropped, its payloads no longer decode (and say which key is missing).
    const k2Only = new AesGcmPayloadCodec(parsePayloadKeys(k2));
    await expect(k2Only.decode([oldPayload!])).rejects.toThrow(/unknown key "k1"/);
  });

  it('a wrong key with the same id, or tampered data, fails to decode', async () => {
    const [enc] = await new AesGcmPayloadCodec(parsePayloadKeys(key('k1'))).encode([plain()]);
    await expect(new AesGcmPayloadCodec(parsePayloadKeys(key('k1'))).decode([enc!])).rejects.toThrow(PayloadKeyError);
    const codec = new AesGcmPayloadCodec(parsePayloadKeys(key('k9')));
    const [good] = await codec.encode([plain()]);
    const data = Buffer.from(good!.data!);
    data[20] = data[20]! ^ 1;
    await expect(codec.decode([{ ...good!, data }])).rejects.toThrow(/wrong key or tampered/);
    await expect(codec.decode([{ ...good!, data: data.subarray(0, 10) }])).rejects.toThrow(/truncated/);
  });

  it('passes payloads that are not encrypted through decode (histories from before the codec)', async () => {
    const codec = new AesGcmPayloadCodec(parsePayloadKeys(key('k1')));
    const p = plain();
    expect(await codec.decode([p])).toEqual([p]);
  });

  it.each([
    ['', /holds no key/],
    ['nokey', /<keyId>:<base64 key>/],
    [':abc', /<keyId>:<base64 key>/],
    ['k1:c2hvcnQ=', /must be 32 bytes/],
    ['bad id!:' + randomBytes(32).toString('base64'), /key id/],
  ])('refuses TEMPORAL_PAYLOAD_KEYS=%j', (raw, message) => {
    expect(() => parsePayloadKeys(raw)).toThrow(message);
  });

  it('refuses duplicate key ids; generates valid entries', () => {
    const k = key('k1');
    expect(() => parsePayloadKeys(`${k},${k}`)).toThrow(/unique/);
    expect(parsePayloadKeys(generatePayloadKeyEntry())[0]!.key).toHaveLength(32);
  });
});
