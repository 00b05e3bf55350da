import { randomBytes } from 'node:crypto';
import { openSecret, parseSecretsKey, sealSecret } from '../../../platform/shared/secret-box';
import { addTracking, clickUrl, trackingKey } from '../tracking';

const key = randomBytes(32);

describe('secret-box', () => {
  it('round-trips and never contains the plain text', () => {
    const sealed = sealSecret('p@ss word', key, 'acc1');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('p@ss');
    expect(openSecret(sealed, key, 'acc1')).toBe('p@ss word');
    expect(sealSecret('p@ss word', key, 'acc1')).not.toBe(sealed);
  });

  it('refuses another row, another key and a tampered value', () => {
    const sealed = sealSecret('secret', key, 'acc1');
    expect(() => openSecret(sealed, key, 'acc2')).toThrow(/cannot be decrypted/);
    expect(() => openSecret(sealed, randomBytes(32), 'acc1')).toThrow(/cannot be decrypted/);
    const parts = sealed.split('.');
    // Flip one bit of the first ciphertext byte (replacing it with a fixed byte was a no-op 1 time in 256).
    const bytes = Buffer.from(parts[3]!, 'base64url');
    bytes[0] = bytes[0]! ^ 0x01;
    parts[3] = bytes.toString('base64url');
    expect(() => openSecret(parts.join('.'), key, 'acc1')).toThrow(/cannot be decrypted/);
  });

  it('needs a key', () => {
    expect(() => sealSecret('x', null, 'a')).toThrow(/CRM_SECRETS_KEY/);
  });

  it.each([
    ['a'.repeat(64), 32],
    [randomBytes(32).toString('base64'), 32],
  ])('parses %s', (raw, len) => {
    expect(parseSecretsKey(raw)!.length).toBe(len);
  });
  it.each(['abc', 'a'.repeat(63)])('refuses key %s', (raw) => {
    expect(() => parseSecretsKey(raw)).toThrow(/32 bytes/);
  });
  it('is unset without a value', () => expect(parseSecretsKey(undefined)).toBeNull());
});

describe('addTracking', () => {
  const t = { baseUrl: 'https://crm.example', key: trackingKey(key) };
  it('rewrites http(s) links, keeps others, appends the pixel before </body>', () => {
    const html =
      '<html><body><a href="https://a.example/x?y=1&amp;z=2">A</a> <a href="mailto:x@y.z">M</a> <a class="b" href=\'http://b.example\'>B</a></body></html>';
    const out = addTracking(html, t, 'a'.repeat(24), 'b'.repeat(24));
    expect(out).toContain(
      clickUrl(t, 'a'.repeat(24), 'b'.repeat(24), 'https://a.example/x?y=1&z=2').replace(/&/g, '&amp;'),
    );
    expect(out).toContain('href="mailto:x@y.z"');
    expect(out).toContain(
      `href='${clickUrl(t, 'a'.repeat(24), 'b'.repeat(24), 'http://b.example').replace(/&/g, '&amp;')}'`,
    );
    expect(out).toMatch(
      /<img src="https:\/\/crm\.example\/api\/track\/email\/open\/[0-9a-f]{48}\.[\w-]{43}"[^>]*><\/body><\/html>$/,
    );
  });
});
