import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { safeFetch, type SafeFetch } from '../../platform/net/safe-fetch';
import { Image } from './image.entity';
import { MAX_IMAGE_BYTES, assertMagic, decodeImageDataUrl, imageTypeOf, tooLarge, type ImageType } from './image-bytes';

export const IMAGE_PATH = '/api/v1/images/';
export const IMAGE_FETCH_TIMEOUT_MS = 10_000;
const TOKEN_RE = /^[0-9a-f]{64}$/;
const MAX_SOURCE_URL = 2048;

export interface ResolveImageOptions {
  /** AppConfig.publicBaseUrl: image URLs handed back are absolute. */
  publicBaseUrl: string;
  /** AppConfig.outboundAllowHosts, for re-hosting from private hosts in tests/private deployments. */
  allowHosts: readonly string[];
  /** Injected in tests; production uses the guarded client. */
  fetchImpl?: SafeFetch;
}

export const isImageToken = (token: string): boolean => TOKEN_RE.test(token);

export function imageUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${IMAGE_PATH}${token}`;
}

/**
 * An image field value (`avatar`, `logoUrl`) → what to store: null to clear, otherwise the URL
 * of a workspace image. Accepts a base64 image data URL, an https image URL (re-hosted), or one
 * of this workspace's own image URLs (so a read-modify-write round trip keeps the value).
 */
export async function resolveImageInput(ctx: Ctx, value: string, opts: ResolveImageOptions): Promise<string | null> {
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (/^data:/i.test(trimmed)) {
    const { contentType, bytes } = decodeImageDataUrl(trimmed);
    return storeImage(ctx, { contentType, bytes, sourceUrl: null }, opts.publicBaseUrl);
  }
  const own = ownImageToken(trimmed, opts.publicBaseUrl);
  if (own !== undefined) {
    const existing = own ? await ctx.em.findOne(Image, { token: own, workspaceId: ctx.actor.workspaceId }) : null;
    if (!existing) throw validation('image URL points to an image that does not exist in this workspace');
    return imageUrl(opts.publicBaseUrl, existing.token);
  }
  if (/^https:\/\//i.test(trimmed)) {
    const fetched = await fetchRemoteImage(trimmed, opts);
    return storeImage(ctx, { ...fetched, sourceUrl: trimmed }, opts.publicBaseUrl);
  }
  throw validation('image must be an https URL, a data:image/...;base64 URL (up to 2 MB) or an empty string to clear');
}

/** The token of a URL under our own image path: '' when the path matches but the token is malformed. */
function ownImageToken(value: string, publicBaseUrl: string): string | undefined {
  const prefix = imageUrl(publicBaseUrl, '');
  if (!value.toLowerCase().startsWith(prefix.toLowerCase())) return undefined;
  const token = value.slice(prefix.length);
  return isImageToken(token) ? token : '';
}

async function fetchRemoteImage(
  url: string,
  opts: ResolveImageOptions,
): Promise<{ contentType: ImageType; bytes: Buffer }> {
  if (url.length > MAX_SOURCE_URL) throw validation(`image URL must be at most ${MAX_SOURCE_URL} characters`);
  const fetchImpl = opts.fetchImpl ?? safeFetch;
  let res;
  try {
    res = await fetchImpl(url, {
      method: 'GET',
      headers: { accept: 'image/png, image/jpeg, image/gif, image/webp', 'user-agent': 'crm-image-rehost/1' },
      timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
      maxBytes: MAX_IMAGE_BYTES,
      allowHosts: opts.allowHosts,
      allowedProtocols: ['https:'],
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'too_large') throw tooLarge('image at the URL');
    throw err;
  }
  const where = `image URL ${new URL(url).origin}`;
  if (res.status >= 300 && res.status < 400) {
    throw validation(
      `${where} answered with a redirect (${res.status}); redirects are not followed, give the final image URL`,
    );
  }
  if (res.status >= 400 && res.status < 500)
    throw validation(`${where} answered ${res.status}; it must serve the image directly`);
  if (res.status < 200 || res.status >= 300)
    throw new DomainError('upstream_failed', `${where} answered ${res.status}`);
  if (res.body.length > MAX_IMAGE_BYTES) throw tooLarge('image at the URL');
  const contentType = imageTypeOf(res.headers['content-type'] ?? '', where);
  assertMagic(res.body, contentType, where);
  return { contentType, bytes: res.body };
}

/** One row per distinct content per workspace: identical bytes reuse the existing token. */
async function storeImage(
  ctx: Ctx,
  input: { contentType: ImageType; bytes: Buffer; sourceUrl: string | null },
  publicBaseUrl: string,
): Promise<string> {
  const workspaceId = ctx.actor.workspaceId;
  const sha256 = createHash('sha256').update(input.bytes).digest('hex');
  const existing = await ctx.em.findOne(Image, { workspaceId, sha256 });
  if (existing) return imageUrl(publicBaseUrl, existing.token);
  const image = ctx.em.create(Image, {
    workspaceId,
    token: randomBytes(32).toString('hex'),
    contentType: input.contentType,
    size: input.bytes.length,
    sha256,
    data: input.bytes,
    sourceUrl: input.sourceUrl,
  });
  await ctx.em.persist(image).flush();
  return imageUrl(publicBaseUrl, image.token);
}

export interface PublicImage {
  contentType: string;
  data: Buffer;
  sha256: string;
}

/**
 * The image behind a public token, from any workspace. `em` must be an unbound fork: this is
 * the one legitimate cross-workspace read (image tags cannot send credentials; the 256-bit
 * random token is the capability), so the tenant filter is switched off for this query only.
 */
export async function getPublicImage(em: EntityManager, token: string): Promise<PublicImage> {
  if (!isImageToken(token)) throw notFound('image');
  const image = await em.findOne(Image, { token }, { filters: false });
  if (!image) throw notFound('image');
  return { contentType: image.contentType, data: Buffer.from(image.data), sha256: image.sha256 };
}
