/**
 * Content type from the leading bytes (magic numbers), never from the client's declaration: a
 * file served back from this API must be what it claims. Unknown binary is
 * application/octet-stream; valid UTF-8 text without NULs is text/plain (text/csv when it looks
 * like comma- or semicolon-separated rows).
 */
export const SNIFF_BYTES = 4096;

export function sniffContentType(head: Uint8Array, filename = ''): string {
  const starts = (sig: readonly number[], at = 0): boolean =>
    head.length >= at + sig.length && sig.every((b, i) => head[at + i] === b);
  const ascii = (text: string, at = 0): boolean =>
    starts(
      [...text].map((c) => c.charCodeAt(0)),
      at,
    );
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii('GIF87a') || ascii('GIF89a')) return 'image/gif';
  if (ascii('RIFF') && ascii('WEBP', 8)) return 'image/webp';
  if (ascii('%PDF-')) return 'application/pdf';
  if (starts([0x1f, 0x8b, 0x08])) return 'application/gzip';
  if (ascii('ftyp', 4)) return ascii('qt  ', 8) ? 'video/quicktime' : 'video/mp4';
  if (starts([0x50, 0x4b, 0x03, 0x04]) || starts([0x50, 0x4b, 0x05, 0x06])) return zipFlavour(head);
  if (starts([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'application/x-ole-storage';
  if (ascii('ID3') || (head.length > 1 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0)) return 'audio/mpeg';
  return textFlavour(head, filename);
}

/** Office Open XML documents are zip files whose first entry names reveal the kind. */
function zipFlavour(head: Uint8Array): string {
  const text = Buffer.from(head).toString('latin1');
  if (text.includes('word/')) return 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  if (text.includes('xl/')) return 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  if (text.includes('ppt/')) return 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
  // [Content_Types].xml first but the part folders not yet seen in the sniffed bytes: still OOXML.
  return 'application/zip';
}

function textFlavour(head: Uint8Array, filename: string): string {
  if (!head.length) return 'application/octet-stream';
  if (head.includes(0)) return 'application/octet-stream';
  // The sniffed window may cut a multi-byte character: drop up to 3 trailing bytes before decoding.
  let text: string | null = null;
  for (let cut = 0; cut <= 3 && text === null; cut++) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - cut));
    } catch {
      text = null;
    }
  }
  if (text === null) return 'application/octet-stream';
  // Control characters other than tab, CR, LF, FF mean binary.
  if (/[\x01-\x08\x0b\x0e-\x1a\x1c-\x1f]/.test(text)) return 'application/octet-stream';
  const trimmed = text.replace(/^\ufeff/, '').trimStart();
  if (/^<\?xml|^<svg/i.test(trimmed)) return /<svg/i.test(trimmed.slice(0, 1000)) ? 'image/svg+xml' : 'application/xml';
  if (/^<!doctype html|^<html/i.test(trimmed)) return 'text/html';
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && /\.json$/i.test(filename)) return 'application/json';
  if (looksLikeCsv(trimmed) || /\.csv$/i.test(filename)) return 'text/csv';
  return 'text/plain';
}

function looksLikeCsv(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .filter((l) => l.length > 0)
    .slice(0, 5);
  if (lines.length < 2) return false;
  for (const sep of [',', ';', '\t']) {
    const counts = lines.map((l) => l.split(sep).length - 1);
    if (counts[0]! > 0 && counts.every((c) => c === counts[0])) return true;
  }
  return false;
}

/** Types that a browser would run as a document from our origin: always downloaded, never inline. */
export const ACTIVE_CONTENT_TYPES = new Set(['text/html', 'image/svg+xml', 'application/xml']);

/**
 * A storable display name: path components, control and bidi-override characters and reserved
 * characters removed, whitespace collapsed, at most 255 characters (the extension kept).
 */
export function sanitizeFilename(raw: string | undefined | null): string {
  let name = (raw ?? '').normalize('NFC');
  name = name.split(/[\\/]/).pop() ?? '';
  name = name.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '');
  name = name
    .replace(/[<>:"|?*]/g, '_')
    .replace(/\s+/g, ' ')
    .trim();
  name = name.replace(/^\.+/, '').trim();
  // Drop lone surrogates so Postgres can store the name.
  name = name.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
  if (!name) return 'file';
  if (name.length > 255) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, 255 - ext.length) + ext;
  }
  return name;
}
