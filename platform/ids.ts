import { randomBytes } from 'node:crypto';

// 24-hex object ids: 4-byte seconds timestamp, 5 random bytes per process, 3-byte counter,
// so ids sort by creation time and match the ids clients of this API already hold.
const processRandom = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(date: Date = new Date()): string {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(Math.floor(date.getTime() / 1000) >>> 0, 0);
  processRandom.copy(buf, 4);
  counter = (counter + 1) % 0xffffff;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

export const ID_RE = /^[0-9a-f]{24}$/;

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_RE.test(value);
}
