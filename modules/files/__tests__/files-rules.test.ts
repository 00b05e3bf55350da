import { sanitizeFilename, sniffContentType } from '../sniff';
import { UrlSigner } from '../signed-token';
import { fileEnv } from '../settings';

const b = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));

describe('content sniffing', () => {
  const cases: [string, Uint8Array, string, string?][] = [
    ['empty', b(), 'application/octet-stream'],
    ['gif87a', b('GIF87a'), 'image/gif'],
    ['quicktime', b([0, 0, 0, 0x14], 'ftypqt  '), 'video/quicktime'],
    [
      'pptx',
      b([0x50, 0x4b, 3, 4], 'ppt/slides'),
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
    ['svg', b('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'],
    ['json by name', b('{"a":1}'), 'application/json', 'data.json'],
    ['json without name is text', b('{"a":1}'), 'text/plain'],
    ['semicolon csv', b('a;b;c\n1;2;3\n'), 'text/csv'],
    ['csv by name', b('single column\n'), 'text/csv', 'list.csv'],
    ['utf-8 cut mid-character', b('caf', [0xc3]), 'text/plain'],
    ['latin-1 is binary', b('caf', [0xe9], ' au lait'), 'application/octet-stream'],
    ['control characters', b('abc', [0x07], 'def'), 'application/octet-stream'],
  ];
  it('recognises each kind from its first bytes', () => {
    for (const [label, bytes, expected, name] of cases)
      expect([label, sniffContentType(bytes, name)]).toEqual([label, expected]);
  });
});

describe('file names', () => {
  it.each([
    ['a/b/c.txt', 'c.txt'],
    ['a\\b\\c.txt', 'c.txt'],
    ['\u0000nul.txt', 'nul.txt'],
    ['x\ud800y.txt', 'xy.txt'],
    ['..', 'file'],
    ['tab\tand\nnewline.txt', 'tabandnewline.txt'],
    [`${'é'.repeat(300)}.averyveryverylongextension`, 'é'.repeat(255)],
  ])('name case %#', (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });
});

describe('signed URL tokens', () => {
  const signer = new UrlSigner('secret-a');
  const future = Math.floor(Date.now() / 1000) + 3600;

  it('round-trips and refuses another key, another operation, tampering and expiry', () => {
    const token = signer.sign({ op: 'get', key: 'w/f', exp: future, name: 'a.pdf', type: 'application/pdf' });
    expect(signer.verify(token, 'get')).toEqual({
      ok: true,
      payload: { op: 'get', key: 'w/f', exp: future, name: 'a.pdf', type: 'application/pdf' },
    });
    expect(new UrlSigner('secret-b').verify(token, 'get')).toEqual({ ok: false, reason: 'invalid' });
    expect(signer.verify(token, 'put')).toEqual({ ok: false, reason: 'invalid' });
    expect(signer.verify(`x${token}`, 'get')).toEqual({ ok: false, reason: 'invalid' });
    expect(
      signer.verify(
        token.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`),
        'get',
      ),
    ).toEqual({ ok: false, reason: 'invalid' });
    // The signature is compared as text: another spelling of the same bytes (the last character's
    // padding bits, e.g. A/B) is refused too.
    expect(
      signer.verify(
        token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
        'get',
      ),
    ).toEqual({ ok: false, reason: 'invalid' });
    expect(
      signer.verify(signer.sign({ op: 'get', key: 'w/f', exp: Math.floor(Date.now() / 1000) - 1 }), 'get'),
    ).toEqual({ ok: false, reason: 'expired' });
    expect(signer.verify('', 'get')).toEqual({ ok: false, reason: 'invalid' });
  });
});

describe('file settings', () => {
  it('defaults and refusals', () => {
    const env = fileEnv({});
    expect(env).toMatchObject({
      driver: 'local',
      maxBytes: 25 * 1024 * 1024,
      urlTtlSeconds: 900,
      s3: { region: 'us-east-1', forcePathStyle: false, keyPrefix: '' },
    });
    expect(env.localDir).toMatch(/\.data\/files$/);
    expect(() => fileEnv({ FILE_STORAGE: 'ftp' })).toThrow(/FILE_STORAGE/);
    expect(() => fileEnv({ FILE_MAX_BYTES: '0' })).toThrow(/FILE_MAX_BYTES/);
    expect(() => fileEnv({ S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(/S3_FORCE_PATH_STYLE/);
    expect(fileEnv({ FILE_URL_TTL_SECONDS: '99999999' }).urlTtlSeconds).toBe(7 * 24 * 3600);
  });
});
