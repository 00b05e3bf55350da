import { DomainError } from '../../../platform/errors';
import { MAX_IMAGE_BYTES, decodeImageDataUrl, imageTypeOf, sniffImageType } from '../image-bytes';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

const dataUrl = (type: string, bytes: Buffer): string => `data:${type};base64,${bytes.toString('base64')}`;
const padded = (head: Buffer, size: number): Buffer => Buffer.concat([head, Buffer.alloc(size - head.length)]);

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'ok';
}

describe('sniffImageType', () => {
  it.each([
    [PNG, 'image/png'],
    [JPEG, 'image/jpeg'],
    [GIF, 'image/gif'],
    [Buffer.from('GIF87a'), 'image/gif'],
    [WEBP, 'image/webp'],
    [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), null],
    [Buffer.from('RIFF\0\0\0\0WAVE'), null],
    [Buffer.from('GIF89'), null],
    [Buffer.alloc(0), null],
  ])('%#', (bytes, expected) => {
    expect(sniffImageType(bytes)).toBe(expected);
  });
});

describe('decodeImageDataUrl', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/gif', GIF],
    ['image/webp', WEBP],
  ])('accepts %s', (type, bytes) => {
    const decoded = decodeImageDataUrl(dataUrl(type, bytes));
    expect(decoded.contentType).toBe(type);
    expect(decoded.bytes.equals(bytes)).toBe(true);
  });

  it('accepts image/jpg as JPEG, upper-case types, parameters and wrapped base64', () => {
    expect(decodeImageDataUrl(dataUrl('image/jpg', JPEG)).contentType).toBe('image/jpeg');
    expect(decodeImageDataUrl(dataUrl('IMAGE/PNG', PNG)).contentType).toBe('image/png');
    expect(decodeImageDataUrl(`data:image/png;name=logo.png;base64,${PNG.toString('base64')}`).bytes.equals(PNG)).toBe(
      true,
    );
    const b64 = PNG.toString('base64');
    expect(decodeImageDataUrl(`data:image/png;base64,${b64.slice(0, 8)}\n${b64.slice(8)}`).bytes.equals(PNG)).toBe(
      true,
    );
    expect(decodeImageDataUrl(`data:image/png;base64,${b64.replace(/=+$/, '')}`).bytes.equals(PNG)).toBe(true);
  });

  it('accepts exactly 2 MB and refuses one byte more with too_large', () => {
    expect(decodeImageDataUrl(dataUrl('image/png', padded(PNG, MAX_IMAGE_BYTES))).bytes).toHaveLength(MAX_IMAGE_BYTES);
    expect(codeOf(() => decodeImageDataUrl(dataUrl('image/png', padded(PNG, MAX_IMAGE_BYTES + 1))))).toMatch(
      /^too_large: .*2 MB limit/,
    );
  });

  it.each([
    ['text data URL', `data:text/plain;base64,${Buffer.from('hi').toString('base64')}`, /image media type/],
    ['html data URL', 'data:text/html,<script>alert(1)</script>', /image media type/],
    ['no media type', `data:;base64,${PNG.toString('base64')}`, /image media type/],
    [
      'SVG',
      dataUrl('image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')),
      /SVG images are not accepted/,
    ],
    ['BMP', dataUrl('image/bmp', Buffer.from('BM....')), /unsupported image type "image\/bmp"/],
    ['not base64-encoded', 'data:image/png,%89PNG', /must be base64-encoded/],
    ['invalid base64 characters', 'data:image/png;base64,iVBO!!!w0KGgo=', /invalid base64/],
    ['base64url alphabet', 'data:image/png;base64,iVBORw0KGgo_-A', /invalid base64/],
    ['impossible length', 'data:image/png;base64,iVBORw0KG', /invalid base64/],
    ['padding in the middle', 'data:image/png;base64,iVBO=Rw0KGgo', /invalid base64/],
    ['empty payload', 'data:image/png;base64,', /empty/],
    ['declared PNG, bytes JPEG', dataUrl('image/png', JPEG), /declared image\/png but the content is image\/jpeg/],
    ['declared GIF, bytes text', dataUrl('image/gif', Buffer.from('hello world')), /not a recognised image/],
    ['SVG declared as PNG', dataUrl('image/png', Buffer.from('<svg/>')), /not a recognised image/],
    ['no comma', 'data:image/png;base64', /malformed/],
  ])('refuses %s', (_name, value, message) => {
    const outcome = codeOf(() => decodeImageDataUrl(value));
    expect(outcome).toMatch(/^validation: /);
    expect(outcome).toMatch(message);
  });
});

describe('imageTypeOf (re-hosted Content-Type)', () => {
  it.each([
    ['image/png', 'image/png'],
    ['image/jpeg; charset=binary', 'image/jpeg'],
    [' IMAGE/WEBP ', 'image/webp'],
  ])('%j → %s', (header, expected) => {
    expect(imageTypeOf(header, 'x')).toBe(expected);
  });

  it.each(['', 'text/html', 'application/octet-stream', 'image/svg+xml', 'image/avif'])('refuses %j', (header) => {
    expect(codeOf(() => imageTypeOf(header, 'x'))).toMatch(/^validation: /);
  });
});
