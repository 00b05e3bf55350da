import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isId } from '../../platform/ids';
import { emit } from '../../platform/outbox/emit';
import { inTransaction } from '../../platform/shared/tx';
import { Email } from './email.entity';
import { emailEventPayload } from './email-records';
import { inboundCtx } from './inbound.service';

/**
 * Open pixel and click redirect. Tokens are HMAC-SHA256 (key derived from CRM_SECRETS_KEY) over
 * workspace + e-mail id (+ the link for clicks), so a redirect only ever goes to a link that was in
 * the e-mail: no open redirect, and ids cannot be guessed into counts.
 */
export interface TrackingConfig {
  baseUrl: string;
  key: Buffer;
}

export const trackingKey = (secretsKey: Buffer): Buffer =>
  createHmac('sha256', secretsKey).update('crm email tracking v1').digest();

const sign = (key: Buffer, parts: string[]): string =>
  createHmac('sha256', key).update(parts.join('\n')).digest('base64url');

function verify(key: Buffer, parts: string[], sig: string): boolean {
  const expected = Buffer.from(sign(key, parts));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export const openUrl = (t: TrackingConfig, workspaceId: string, emailId: string): string =>
  `${t.baseUrl}/api/track/email/open/${workspaceId}${emailId}.${sign(t.key, ['open', workspaceId, emailId])}`;

export const clickUrl = (t: TrackingConfig, workspaceId: string, emailId: string, link: string): string =>
  `${t.baseUrl}/api/track/email/click/${workspaceId}${emailId}.${sign(t.key, ['click', workspaceId, emailId, link])}?u=${encodeURIComponent(link)}`;

/** Attribute (before href) of a link the click redirect must leave alone. */
export const NO_TRACK = 'data-crm-notrack';

/** The html as sent: http(s) links go through the click redirect and the pixel is appended (each unless turned off). */
export function addTracking(
  html: string,
  t: TrackingConfig,
  workspaceId: string,
  emailId: string,
  what: { opens?: boolean; clicks?: boolean } = {},
): string {
  const opens = what.opens ?? true;
  const clicks = what.clicks ?? true;
  const rewritten = !clicks
    ? html
    : html.replace(
        /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi,
        (m, head: string, q: string, url: string) => {
          // Links of our own that must reach the API as written (the unsubscribe link) opt out.
          if (head.includes(NO_TRACK)) return m;
          const link = url.replace(/&amp;/g, '&');
          return `${head}${q}${clickUrl(t, workspaceId, emailId, link).replace(/&/g, '&amp;')}${q}`;
        },
      );
  const pixel = `<img src="${openUrl(t, workspaceId, emailId)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;
  if (!opens) return rewritten;
  return /<\/body>/i.test(rewritten) ? rewritten.replace(/<\/body>/i, `${pixel}</body>`) : rewritten + pixel;
}

/** Splits `<workspaceId><emailId>.<sig>`; null when malformed. */
function parseToken(token: string): { workspaceId: string; emailId: string; sig: string } | null {
  const m = /^([0-9a-f]{24})([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m && isId(m[1]) && isId(m[2]) ? { workspaceId: m[1]!, emailId: m[2]!, sig: m[3]! } : null;
}

async function record(
  rootEm: EntityManager,
  workspaceId: string,
  emailId: string,
  kind: 'open' | 'click',
  link?: string,
): Promise<void> {
  const ctx = await inboundCtx(rootEm, workspaceId);
  await inTransaction(ctx, async () => {
    const email = await ctx.em.findOne(Email, { _id: emailId });
    if (!email) return;
    const now = new Date();
    if (kind === 'open') {
      email.openCount += 1;
      // Sequences and automations react to the first open; later opens only count.
      if (!email.firstOpenedAt) {
        email.firstOpenedAt = now;
        emit(ctx, {
          type: 'email_opened',
          entityType: 'email',
          entityId: email._id,
          payload: emailEventPayload(email),
        });
      }
    } else {
      email.clickCount += 1;
      emit(ctx, {
        type: 'email_clicked',
        entityType: 'email',
        entityId: email._id,
        payload: { ...emailEventPayload(email), url: link },
      });
    }
    email.updatedAt = now;
  });
}

/** Records an open when the token is genuine; the pixel is answered either way (mail clients show no errors). */
export async function trackOpen(rootEm: EntityManager, key: Buffer | null, token: string): Promise<boolean> {
  const t = parseToken(token.replace(/\.gif$/, ''));
  if (!key || !t || !verify(key, ['open', t.workspaceId, t.emailId], t.sig)) return false;
  await record(rootEm, t.workspaceId, t.emailId, 'open');
  return true;
}

/** The link to redirect to, or null when the token does not sign exactly this link. */
export async function trackClick(
  rootEm: EntityManager,
  key: Buffer | null,
  token: string,
  link: string | undefined,
): Promise<string | null> {
  const t = parseToken(token);
  if (
    !key ||
    !t ||
    !link ||
    !/^https?:\/\//i.test(link) ||
    !verify(key, ['click', t.workspaceId, t.emailId, link], t.sig)
  )
    return null;
  await record(rootEm, t.workspaceId, t.emailId, 'click', link);
  return link;
}
