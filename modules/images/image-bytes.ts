import { DomainError, validation } from '../../platform/errors';

/** Spec limit for an inline image (data URL) and for a re-hosted one: 2 MB of decoded bytes. */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
export const IMAGE_TYPES: readonly ImageType[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

const ACCEPTED = 'PNG, JPEG, GIF or WebP';

export const tooLarge = (what: string): DomainError =>
  new DomainError('too_large', `${what} is larger than the 2 MB limit (${MAX_IMAGE_BYTES} bytes)`);

/**
 * A declared media type as one of ours, or a validation error naming what is accepted.
 * SVG is refused on purpose: it is a document that can carry script and external references,
 * and these images are served publicly from the API's own origin.
 */
export function imageTypeOf(declared: string, where: string): ImageType {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  if (type === 'image/jpg' || type === 'image/pjpeg') return 'image/jpeg';
  if ((IMAGE_TYPES as readonly string[]).includes(type)) return type as ImageType;
  if (type === 'image/svg+xml')
    throw validation(`${where}: SVG images are not accepted (they can carry script); use ${ACCEPTED}`);
  throw validation(`${where}: unsupported image type "${type || 'none'}"; use ${ACCEPTED}`);
}

/** The type the leading bytes prove, or null. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const starts = (sig: number[], at = 0): boolean =>
    bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61)
    return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}

/** The bytes really are the declared type; a mismatch is refused rather than served mislabelled. */
export function assertMagic(bytes: Uint8Array, type: ImageType, where: string): void {
  if (!bytes.length) throw validation(`${where}: the image is empty`);
  const actual = sniffImageType(bytes);
  if (actual !== type) {
    throw validation(`${where}: declared ${type} but the content is ${actual ?? 'not a recognised image'}`);
  }
}

const DATA_URL_RE = /^data:([^,;]*)((?:;[^,;]*)*),(.*)$/is;
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

export interface DecodedImage {
  contentType: ImageType;
  bytes: Buffer;
}

/**
 * `data:image/<type>[;param=value]*;base64,<data>` → checked bytes. Size is checked from the
 * encoded length before decoding, so an oversized upload is refused without allocating it.
 */
export function decodeImageDataUrl(value: string): DecodedImage {
  const where = 'image data URL';
  const match = DATA_URL_RE.exec(value);
  if (!match) throw validation(`${where} is malformed; expected data:image/<type>;base64,<data>`);
  const [, mediaType = '', params = '', payload = ''] = match;
  if (!mediaType.trim().toLowerCase().startsWith('image/')) {
    throw validation(`${where} must have an image media type, got "${mediaType || 'none'}"`);
  }
  const contentType = imageTypeOf(mediaType, where);
  if (
    !params
      .toLowerCase()
      .split(';')
      .map((s) => s.trim())
      .includes('base64')
  ) {
    throw validation(`${where} must be base64-encoded (data:${contentType};base64,...)`);
  }
  const data = payload.replace(/[\t\n\f\r ]+/g, '');
  const unpadded = data.replace(/=+$/, '');
  const decodedLength = Math.floor((unpadded.length * 3) / 4);
  if (decodedLength > MAX_IMAGE_BYTES) throw tooLarge('inline image');
  if (
    !BASE64_RE.test(data) ||
    unpadded.length % 4 === 1 ||
    (data.length !== unpadded.length && data.length % 4 !== 0)
  ) {
    throw validation(`${where} has invalid base64 data`);
  }
  const bytes = Buffer.from(unpadded, 'base64');
  assertMagic(bytes, contentType, where);
  return { contentType, bytes };
}
