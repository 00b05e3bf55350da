import { createHash } from 'node:crypto';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { ImageResolver } from '../companies';
import { getPerson, serializePerson, updatePerson } from '../people';
import { MAX_IMAGE_BYTES, assertMagic, imageTypeOf } from '../images';
import { safeFetch as defaultFetch, type SafeFetch } from '../../platform/net/safe-fetch';
import type { AvatarResultView } from './lookups.views';

const MAX_EMAILS = 5;
const AVATAR_TIMEOUT_MS = 8_000;

/**
 * Fills an empty avatar from the public avatar service (Gravatar protocol: md5 of the trimmed,
 * lower-case address; `d=404` makes "no avatar" a 404 instead of a generic picture). The bytes
 * are checked and stored as a workspace image, like any uploaded avatar.
 */
export async function findAvatar(
  ctx: Ctx,
  id: string,
  deps: { avatarLookupUrl: string | null; allowHosts: readonly string[]; images: ImageResolver; fetch?: SafeFetch },
): Promise<AvatarResultView> {
  const person = await getPerson(ctx, id);
  if (person.avatar)
    return {
      status: 'already_filled',
      hint: 'the person already has an avatar; clear it (PUT avatar "") to look it up again',
      source: null,
      person: serializePerson(person),
    };
  const emails = person.emails
    .map((e) => e.email.trim().toLowerCase())
    .filter(Boolean)
    .slice(0, MAX_EMAILS);
  const notFound = (hint: string): AvatarResultView => ({
    status: 'not_found',
    hint,
    source: null,
    person: serializePerson(person),
  });
  if (!deps.avatarLookupUrl)
    return notFound(
      'public avatar lookups are switched off (AVATAR_LOOKUP_URL=off); upload an avatar with PUT /people/:id',
    );
  if (!emails.length)
    return notFound('the person has no e-mail address to look an avatar up by; add one or upload an avatar');
  const fetch = deps.fetch ?? defaultFetch;
  for (const email of emails) {
    const hash = createHash('md5').update(email).digest('hex');
    const url = `${deps.avatarLookupUrl}/avatar/${hash}?d=404&s=256`;
    let res;
    try {
      res = await fetch(url, {
        headers: { accept: 'image/png, image/jpeg, image/gif, image/webp' },
        timeoutMs: AVATAR_TIMEOUT_MS,
        maxBytes: MAX_IMAGE_BYTES,
        allowHosts: deps.allowHosts,
      });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'too_large') continue;
      if (err instanceof DomainError) throw new DomainError('upstream_failed', `avatar lookup: ${err.message}`);
      throw err;
    }
    if (res.status === 404) continue;
    if (res.status < 200 || res.status >= 300)
      throw new DomainError('upstream_failed', `avatar service answered ${res.status}`);
    let dataUrl: string;
    try {
      const type = imageTypeOf(res.headers['content-type'] ?? '', 'avatar service');
      assertMagic(res.body, type, 'avatar service');
      dataUrl = `data:${type};base64,${res.body.toString('base64')}`;
    } catch {
      continue;
    }
    const view = await updatePerson(ctx, id, { avatar: dataUrl }, { preview: false, images: deps.images });
    if ('preview' in view) throw new Error('unreachable: not a preview');
    return {
      status: 'updated',
      hint: "avatar set from the public profile picture of the person's e-mail address",
      source: 'gravatar',
      person: view,
    };
  }
  return notFound(
    `no public avatar for the person's e-mail address${emails.length > 1 ? 'es' : ''}; upload one with PUT /people/:id`,
  );
}
