/**
 * Temporal codec server (https://docs.temporal.io/production-deployment/data-encryption): lets
 * the Web UI and `temporal --codec-endpoint` show the encrypted payloads in clear.
 *   POST /codec/decode, POST /codec/encode   with `Authorization: Bearer <TEMPORAL_CODEC_AUTH_TOKEN>`
 *   POST /codec/<token>/decode|encode         the token in the path, for browsers (the Web UI
 *                                             cannot send a custom Authorization header)
 * Body and answer `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`. CORS for the
 * configured UI origins, preflight included. The token is one deployment-wide secret, not a
 * workspace API key: decoded histories span every workspace.
 */
import { secretMatches } from '../shared/secret-match';
import type { Context, Middleware, Next } from 'koa';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import type { AppConfig } from '../config';
import { DomainError } from '../errors';
import { AesGcmPayloadCodec, parsePayloadKeys, PayloadKeyError } from '../temporal/codec';
import { formatZodError } from '../shared/schemas';

const PATH_RE = /^\/codec(?:\/([^/]+))?\/(decode|encode)$/;
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const ALLOW_HEADERS = 'Content-Type, X-Namespace, Authorization';
const MAX_PAYLOADS = 10_000;

const base64 = z
  .string()
  .max(MAX_BODY_BYTES)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const bodySchema = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string().max(1000), base64).optional(), data: base64.optional() }))
    .max(MAX_PAYLOADS),
});
type JsonPayload = z.infer<typeof bodySchema>['payloads'][number];

function fromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

/** A loopback origin also matches its localhost/127.0.0.1 twin (the UI is opened either way). */
function originAllowed(origin: string, allowed: readonly string[]): boolean {
  const twin = origin.replace('//localhost:', '//127.0.0.1:').replace('//localhost', '//127.0.0.1');
  return allowed.some((a) => a === origin || a.replace('//localhost', '//127.0.0.1') === twin);
}

async function readBody(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new DomainError('too_large', `codec request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function codecServer(settings: AppConfig['temporalCodec']): Middleware {
  let codec: AesGcmPayloadCodec | null | undefined;
  const codecOf = (): AesGcmPayloadCodec => {
    if (!settings.payloadKeys || !settings.authToken) {
      throw new DomainError(
        'not_configured',
        'the codec server is not configured: set TEMPORAL_PAYLOAD_KEYS and TEMPORAL_CODEC_AUTH_TOKEN',
      );
    }
    codec ??= new AesGcmPayloadCodec(parsePayloadKeys(settings.payloadKeys));
    return codec;
  };

  return async (ctx: Context, next: Next) => {
    const m = PATH_RE.exec(ctx.path);
    if (!m) return next();
    const origin = ctx.get('origin');
    if (origin && originAllowed(origin, settings.corsOrigins)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
      ctx.vary('Origin');
    }
    if (ctx.method === 'OPTIONS') {
      if (ctx.response.get('Access-Control-Allow-Origin')) {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST, OPTIONS');
      ctx.status = 405;
      ctx.body = { error: `${ctx.method} is not allowed on the codec server; use POST`, code: 'method_not_allowed' };
      return;
    }
    const active = codecOf();
    const header = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'))?.[1]?.trim();
    const given = m[1] !== undefined ? decodeURIComponent(m[1]) : header;
    if (!given || !secretMatches(given, settings.authToken!))
      throw new DomainError('unauthenticated', 'missing or wrong codec server token');

    let json: unknown;
    try {
      json = JSON.parse(await readBody(ctx));
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError('validation', 'body must be JSON: { "payloads": [...] }');
    }
    const parsed = bodySchema.safeParse(json);
    if (!parsed.success) {
      const { message, details } = formatZodError(parsed.error, 'body');
      throw new DomainError('validation', message, details);
    }
    const payloads = parsed.data.payloads.map(fromJson);
    let out: Payload[];
    try {
      out = m[2] === 'decode' ? await active.decode(payloads) : await active.encode(payloads);
    } catch (err) {
      if (err instanceof PayloadKeyError) throw new DomainError('validation', err.message);
      throw err;
    }
    ctx.status = 200;
    ctx.body = { payloads: out.map(toJson) };
  };
}
