import { STATUS_BY_CODE } from '../../../platform/http/errors';
import { SCOPES, type Ctx } from '../../../platform/context';
import { DomainError } from '../../../platform/errors';
import { Image } from '../image.entity';
import { MAX_IMAGE_BYTES } from '../image-bytes';
import { resolveImageInput, type ResolveImageOptions } from '../images.service';
import type { SafeFetch, SafeFetchResponse } from '../../../platform/net/safe-fetch';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { startTestApp, type TestApp } from '../../../test/support/app';
import { domainErrorOf } from '../../../test/support/expect';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

const dataUrl = (type: string, bytes: Buffer): string => `data:${type};base64,${bytes.toString('base64')}`;
/** Distinct bytes per call, so dedupe does not hide a second store. */
let serial = 0;
const unique = (head: Buffer, size = head.length + 8): Buffer => {
  const buf = Buffer.concat([head, Buffer.alloc(Math.max(size - head.length, 0))]);
  buf.writeUInt32BE(++serial, buf.length - 4);
  return buf;
};

let app: TestApp;
let ctx: Ctx;
let otherCtx: Ctx;
let opts: ResolveImageOptions;

async function tenantCtx(): Promise<Ctx> {
  const tenant = await app.tenant();
  return {
    em: forkForWorkspace(app.runtime.deps.orm.em, tenant.workspaceId),
    actor: { workspaceId: tenant.workspaceId, userId: tenant.userId, role: 'owner', scopes: [...SCOPES] },
  };
}

/** The image URL handed back, fetched through the running app (the configured base URL may differ). */
async function getImage(url: string): Promise<Response> {
  return fetch(app.baseUrl + new URL(url).pathname);
}

beforeAll(async () => {
  app = await startTestApp();
  ctx = await tenantCtx();
  otherCtx = await tenantCtx();
  opts = { publicBaseUrl: app.config.publicBaseUrl, allowHosts: [] };
});
afterAll(() => app.close());

const IMAGE_URL = (base: string) =>
  new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/api/v1/images/[0-9a-f]{64}$`);

describe('data URL images', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/gif', GIF],
    ['image/webp', WEBP],
  ])('%s round-trips bytes and content type through the public URL', async (type, head) => {
    const bytes = unique(head);
    const url = await resolveImageInput(ctx, dataUrl(type, bytes), opts);
    expect(url).toMatch(IMAGE_URL(app.config.publicBaseUrl));
    const res = await getImage(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('stores the row in the caller workspace with size and hash', async () => {
    const bytes = unique(PNG);
    const url = await resolveImageInput(ctx, dataUrl('image/png', bytes), opts);
    const token = url!.split('/').pop()!;
    const row = await forkForWorkspace(app.runtime.deps.orm.em, ctx.actor.workspaceId).findOneOrFail(Image, { token });
    expect(row.workspaceId).toBe(ctx.actor.workspaceId);
    expect(row.size).toBe(bytes.length);
    expect(row.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(row.sourceUrl).toBeNull();
    const elsewhere = await forkForWorkspace(app.runtime.deps.orm.em, otherCtx.actor.workspaceId).findOne(Image, {
      token,
    });
    expect(elsewhere).toBeNull();
  });

  it('accepts exactly 2 MB and refuses 2 MB + 1 byte with a 413-coded error', async () => {
    const exact = unique(PNG, MAX_IMAGE_BYTES);
    const url = await resolveImageInput(ctx, dataUrl('image/png', exact), opts);
    const res = await getImage(url!);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(exact)).toBe(true);

    const err = await domainErrorOf(
      resolveImageInput(ctx, dataUrl('image/png', unique(PNG, MAX_IMAGE_BYTES + 1)), opts),
    );
    expect(err.code).toBe('too_large');
    expect(STATUS_BY_CODE[err.code]).toBe(413);
    expect(err.message).toMatch(/2 MB limit/);
  });

  it('reuses the token for identical bytes in one workspace, not across workspaces', async () => {
    const value = dataUrl('image/png', unique(PNG));
    const first = await resolveImageInput(ctx, value, opts);
    const again = await resolveImageInput(ctx, value, opts);
    const other = await resolveImageInput(otherCtx, value, opts);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    const count = await forkForWorkspace(app.runtime.deps.orm.em, ctx.actor.workspaceId).count(Image, {
      token: first!.split('/').pop()!,
    });
    expect(count).toBe(1);
    expect((await getImage(other!)).status).toBe(200);
  });

  it('an empty string clears', async () => {
    expect(await resolveImageInput(ctx, '', opts)).toBeNull();
  });

  it('keeps one of the workspace own image URLs as is, refuses another workspace image URL', async () => {
    const mine = await resolveImageInput(ctx, dataUrl('image/gif', unique(GIF)), opts);
    expect(await resolveImageInput(ctx, mine!, opts)).toBe(mine);
    const err = await domainErrorOf(resolveImageInput(otherCtx, mine!, opts));
    expect(err.code).toBe('validation');
  });

  it.each([
    ['http URL', 'http://example.com/logo.png', /https URL/],
    ['ftp URL', 'ftp://example.com/logo.png', /https URL/],
    ['javascript URL', 'javascript:alert(1)', /https URL/],
    ['plain text', 'logo.png', /https URL/],
    ['non-image data URL', 'data:text/html;base64,PHNjcmlwdD4=', /image media type/],
    ['SVG data URL', dataUrl('image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), /SVG/],
    ['bad base64', 'data:image/png;base64,%%%%', /invalid base64/],
    ['mislabelled bytes', dataUrl('image/png', JPEG), /declared image\/png/],
    ['malformed https URL', 'https://', /invalid URL/],
    ['https to a loopback address', 'https://127.0.0.1/logo.png', /refusing to fetch .*loopback/],
    ['https to localhost', 'https://localhost/logo.png', /refusing to fetch .*loopback/],
    ['https to the metadata address', 'https://169.254.169.254/latest', /refusing to fetch .*link-local/],
  ])('refuses %s as validation', async (_name, value, message) => {
    const err = await domainErrorOf(resolveImageInput(ctx, value, opts));
    expect(err.code).toBe('validation');
    expect(err.message).toMatch(message);
  });
});

describe('https re-hosting (injected fetch)', () => {
  const answer = (partial: Partial<SafeFetchResponse>): SafeFetch =>
    jest.fn(async (url: string) => ({
      status: 200,
      headers: { 'content-type': 'image/png' },
      body: unique(PNG),
      url,
      ...partial,
    }));

  it('fetches https only, without redirects, within 10 s and 2 MB, then stores and serves the image', async () => {
    const bytes = unique(JPEG);
    const fetchImpl = answer({ headers: { 'content-type': 'image/jpeg' }, body: bytes });
    const source = 'https://cdn.example.com/people/ada.jpg?v=2';
    const url = await resolveImageInput(ctx, source, { ...opts, allowHosts: ['cdn.internal'], fetchImpl });
    expect(fetchImpl).toHaveBeenCalledWith(
      source,
      expect.objectContaining({
        allowedProtocols: ['https:'],
        timeoutMs: 10_000,
        maxBytes: MAX_IMAGE_BYTES,
        allowHosts: ['cdn.internal'],
      }),
    );
    const res = await getImage(url!);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    const row = await forkForWorkspace(app.runtime.deps.orm.em, ctx.actor.workspaceId).findOneOrFail(Image, {
      token: url!.split('/').pop()!,
    });
    expect(row.sourceUrl).toBe(source);
  });

  it.each([
    ['a redirect', { status: 302, headers: { location: 'https://elsewhere.example/x.png' } }, 'validation', /redirect/],
    ['a 404', { status: 404 }, 'validation', /answered 404/],
    ['a 503', { status: 503 }, 'upstream_failed', /answered 503/],
    ['an HTML page', { headers: { 'content-type': 'text/html' } }, 'validation', /unsupported image type "text\/html"/],
    ['no content type', { headers: {} }, 'validation', /unsupported image type/],
    ['SVG', { headers: { 'content-type': 'image/svg+xml' }, body: Buffer.from('<svg/>') }, 'validation', /SVG/],
    [
      'bytes that disagree with the type',
      { headers: { 'content-type': 'image/png' }, body: JPEG },
      'validation',
      /declared image\/png but the content is image\/jpeg/,
    ],
    ['a body over 2 MB', { body: unique(PNG, MAX_IMAGE_BYTES + 1) }, 'too_large', /2 MB limit/],
  ] as const)('refuses %s', async (_name, partial, code, message) => {
    const err = await domainErrorOf(
      resolveImageInput(ctx, 'https://cdn.example.com/x.png', {
        ...opts,
        fetchImpl: answer(partial as Partial<SafeFetchResponse>),
      }),
    );
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('maps the client size cap to the 2 MB image message', async () => {
    const fetchImpl: SafeFetch = async () => {
      throw new DomainError('too_large', 'response from https://cdn.example.com is larger than the 2097152-byte limit');
    };
    const err = await domainErrorOf(resolveImageInput(ctx, 'https://cdn.example.com/x.png', { ...opts, fetchImpl }));
    expect(err.code).toBe('too_large');
    expect(err.message).toMatch(/2 MB limit/);
  });

  it('passes network failures through as upstream_failed', async () => {
    const fetchImpl: SafeFetch = async () => {
      throw new DomainError('upstream_failed', 'could not fetch https://cdn.example.com: ECONNRESET');
    };
    const err = await domainErrorOf(resolveImageInput(ctx, 'https://cdn.example.com/x.png', { ...opts, fetchImpl }));
    expect(err.code).toBe('upstream_failed');
  });
});

describe('GET /api/v1/images/:token', () => {
  it.each([
    ['unknown token', 'a'.repeat(64)],
    ['malformed token', 'not-a-token'],
    ['upper-case token', 'A'.repeat(64)],
    ['too long token', 'a'.repeat(65)],
  ])('%s is 404 with { error }', async (_name, token) => {
    const res = await app.anonymous.get(`/api/v1/images/${token}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('image not found');
  });

  it('needs no credentials and ignores the caller workspace (the token is the capability)', async () => {
    const url = await resolveImageInput(otherCtx, dataUrl('image/png', unique(PNG)), opts);
    const tenant = await app.tenant();
    const res = await tenant.http.get(new URL(url!).pathname);
    expect(res.status).toBe(200);
  });
});
