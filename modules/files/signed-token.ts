import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenCheck, TokenPayload, UrlSigning } from '../../platform/ports/storage.port';

export type { TokenCheck, TokenPayload } from '../../platform/ports/storage.port';

const processKey = randomBytes(32).toString('hex');

/**
 * Capability tokens of the local storage driver's URLs: `<base64url JSON>.<base64url HMAC-SHA256>`.
 * The payload names the object key, what the URL may do and when it expires; tampering with any
 * byte breaks the MAC (403), an intact but old token is expired (410).
 */
export class UrlSigner implements UrlSigning {
  private readonly key: Buffer;

  constructor(secret: string | undefined) {
    // A derived key: the same secret may serve other purposes (CRM_SECRETS_KEY).
    this.key = createHmac('sha256', secret ?? processKey)
      .update('crm-file-urls:v1')
      .digest();
  }

  sign(payload: TokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  verify(token: string, op: TokenPayload['op'], now: Date = new Date()): TokenCheck {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 4096) return { ok: false, reason: 'invalid' };
    const body = token.slice(0, dot);
    // Compared as text, not decoded: base64url decoding ignores the padding bits of the last
    // character, which would let several spellings of one signature verify.
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.mac(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
    let payload: TokenPayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenPayload;
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (payload.op !== op || typeof payload.key !== 'string' || typeof payload.exp !== 'number')
      return { ok: false, reason: 'invalid' };
    if (payload.exp * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
    return { ok: true, payload };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
