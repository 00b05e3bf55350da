import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { recordSystemActivity } from '../timeline';
import { inboundCtx } from '../email';
import { emit } from '../../platform/outbox/emit';
import { inTransaction } from '../../platform/shared/tx';
import { Offer, type OfferResponse } from './offer.entity';
import { getOfferSettings } from './offer-settings.service';
import { buildSnapshot } from './offer-snapshot';
import {
  getOffer,
  lockOffer,
  offerEventPayload,
  offerTimelineLink,
  publicOfferUrl,
  type OfferLinks,
} from './offers.service';
import { effectiveStatus, offerCanMove } from './offers.rules';
import type { OfferPreviewLinkView, PublicOffer } from './offers.views';

/** Draft previews: a signed link that works for this long. */
export const PREVIEW_TTL_SECONDS = 3600;
export const PREVIEW_NOT_CONFIGURED =
  'offer previews need CRM_SECRETS_KEY (preview links are signed with a key derived from it)';

export const previewKey = (secretsKey: Buffer): Buffer =>
  createHmac('sha256', secretsKey).update('crm offer preview v1').digest();

const sign = (key: Buffer, parts: string[]): string =>
  createHmac('sha256', key).update(parts.join('\n')).digest('base64url');

/** `<workspaceId><offerId>.<expiry seconds>.<sig>`: the HMAC binds the offer and the expiry. */
export function previewToken(key: Buffer, workspaceId: string, offerId: string, expiresAt: Date): string {
  const exp = String(Math.floor(expiresAt.getTime() / 1000));
  return `${workspaceId}${offerId}.${exp}.${sign(key, ['offer-preview', workspaceId, offerId, exp])}`;
}

/** The offer a preview token names, or null when malformed, forged or expired. */
export function verifyPreviewToken(
  key: Buffer,
  token: string,
  now = new Date(),
): { workspaceId: string; offerId: string } | null {
  const m = /^([0-9a-f]{24})([0-9a-f]{24})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || !isId(m[1]) || !isId(m[2])) return null;
  const expected = Buffer.from(sign(key, ['offer-preview', m[1]!, m[2]!, m[3]!]));
  const given = Buffer.from(m[4]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  if (Number(m[3]) * 1000 <= now.getTime()) return null;
  return { workspaceId: m[1]!, offerId: m[2]! };
}

/** Draft: a signed preview URL valid for an hour; sent (or later): the public link. */
export async function offerPreviewLink(
  ctx: Ctx,
  id: string,
  key: Buffer | null,
  links: OfferLinks,
  now = new Date(),
): Promise<OfferPreviewLinkView> {
  const offer = await getOffer(ctx, id);
  if (offer.publicId)
    return { kind: 'public', url: publicOfferUrl(links, offer.publicId), publicId: offer.publicId, expiresAt: null };
  if (offer.status !== 'draft')
    throw new DomainError(
      'invalid_state',
      `status: the offer is ${offer.status} and was never sent; there is nothing to preview`,
    );
  if (!key) throw new DomainError('not_configured', PREVIEW_NOT_CONFIGURED);
  const expiresAt = new Date(now.getTime() + PREVIEW_TTL_SECONDS * 1000);
  const token = previewToken(key, ctx.actor.workspaceId, offer._id, expiresAt);
  return {
    kind: 'preview',
    url: `${links.publicBaseUrl}/public/offers/preview/${token}`,
    token,
    expiresAt: expiresAt.toISOString(),
  };
}

export type { PublicOffer };

const acceptanceOf = (snapshot: Record<string, unknown>) => (snapshot.acceptance ?? {}) as Record<string, unknown>;

function publicView(offer: Offer, snapshot: Record<string, unknown>, preview: boolean): PublicOffer {
  const status = effectiveStatus(offer);
  const open = !preview && status === 'sent';
  return {
    publicId: preview ? null : (offer.publicId ?? null),
    preview,
    status,
    offerNumber: offer.offerNumber ?? null,
    title: String(snapshot.title ?? offer.title),
    validUntil: offer.validUntil ?? null,
    canAccept: open,
    canDecline: open && acceptanceOf(snapshot).allowDecline !== false,
    response: offer.response
      ? { decision: offer.response.decision, name: offer.response.name, at: offer.response.at }
      : null,
    offer: snapshot,
  };
}

/** The workspace of a public id (global lookup: the id is the capability), or 404. */
async function publicCtx(rootEm: EntityManager, publicId: string): Promise<{ ctx: Ctx; offerId: string }> {
  const rows = await rootEm
    .getConnection()
    .execute<{ id: string; workspace_id: string }[]>(
      `select id, workspace_id from offers where public_id = ? and kind = 'offer'`,
      [publicId],
    );
  const row = rows[0];
  if (!row) throw notFound('offer');
  return { ctx: await inboundCtx(rootEm, row.workspace_id), offerId: row.id };
}

/** The public page's data; counts the view (the first one emits offer_viewed and lands on the timeline). */
export async function viewPublicOffer(
  rootEm: EntityManager,
  publicId: string,
  links: OfferLinks,
): Promise<PublicOffer> {
  const { ctx, offerId } = await publicCtx(rootEm, publicId);
  return inTransaction(ctx, async () => {
    const offer = await lockOffer(ctx, offerId);
    const settings = await getOfferSettings(ctx);
    const track = (settings.trackingSettings as Record<string, unknown> | undefined)?.trackViews !== false;
    if (track && offer.status !== 'cancelled') {
      offer.viewCount += 1;
      if (!offer.firstViewedAt) {
        offer.firstViewedAt = new Date();
        recordSystemActivity(
          ctx,
          offerTimelineLink(offer),
          'offer_viewed',
          `Offer ${offer.offerNumber} opened by the recipient`,
          { offerId: offer._id },
        );
        emit(ctx, {
          type: 'offer_viewed',
          entityType: 'offer',
          entityId: offer._id,
          payload: await offerEventPayload(ctx, offer, links),
        });
      }
    }
    return publicView(offer, offer.snapshot ?? {}, false);
  });
}

/** A draft as it would be sent (live data, nothing recorded), for a valid preview token; 404 otherwise. */
export async function previewOffer(rootEm: EntityManager, key: Buffer | null, token: string): Promise<PublicOffer> {
  const claim = key ? verifyPreviewToken(key, token) : null;
  if (!claim) throw notFound('offer');
  const ctx = await inboundCtx(rootEm, claim.workspaceId);
  const offer = await ctx.em.findOne(Offer, { _id: claim.offerId, kind: 'offer' });
  if (!offer) throw notFound('offer');
  const snapshot = offer.snapshot ?? (await buildSnapshot(ctx, offer, await getOfferSettings(ctx)));
  return publicView(offer, snapshot, true);
}

export interface ResponseInput {
  name?: string;
  email?: string;
  comment?: string;
  reason?: string;
}
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

/** The recipient accepts or declines, once, while the offer is sent and valid (409 otherwise). */
export async function respondToOffer(
  rootEm: EntityManager,
  publicId: string,
  decision: 'accepted' | 'declined',
  input: ResponseInput,
  meta: RequestMeta,
  links: OfferLinks,
): Promise<PublicOffer> {
  const { ctx, offerId } = await publicCtx(rootEm, publicId);
  return inTransaction(ctx, async () => {
    const offer = await lockOffer(ctx, offerId);
    const status = effectiveStatus(offer);
    if (status === 'expired')
      throw new DomainError('invalid_state', `the offer expired after ${offer.validUntil}`, { current: status });
    if (!offerCanMove(status, decision))
      throw new DomainError('invalid_state', `the offer is ${status}; it can no longer be ${decision}`, {
        current: status,
      });
    const rules = acceptanceOf(offer.snapshot ?? {});
    const name = input.name?.trim() || null;
    const email = input.email?.trim().toLowerCase() || null;
    const comment = (decision === 'accepted' ? input.comment : input.reason)?.trim() || null;
    if (decision === 'accepted') {
      if (rules.requireName !== false && !name)
        throw validation('name: is required to accept this offer', [{ path: 'name', error: 'is required' }]);
      if (rules.requireEmail === true && !email)
        throw validation('email: is required to accept this offer', [{ path: 'email', error: 'is required' }]);
    } else {
      if (rules.allowDecline === false) throw new DomainError('invalid_state', 'this offer cannot be declined online');
      if (rules.requireDeclineReason === true && !comment)
        throw validation('reason: is required to decline this offer', [{ path: 'reason', error: 'is required' }]);
    }
    const now = new Date();
    const response: OfferResponse = {
      decision,
      name,
      email,
      comment,
      at: now.toISOString(),
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 500) ?? null,
    };
    offer.status = decision;
    offer.response = response;
    offer.respondedAt = now;
    offer.updatedAt = now;
    const who = name ?? 'the recipient';
    recordSystemActivity(
      ctx,
      offerTimelineLink(offer),
      `offer_${decision}`,
      `Offer ${offer.offerNumber} ${decision} by ${who}`,
      { offerId: offer._id, name, comment },
    );
    // Automation vocabulary: offer_accepted / offer_rejected (webhooks offer.accepted / offer.declined).
    const type = decision === 'accepted' ? 'offer_accepted' : 'offer_rejected';
    emit(ctx, {
      type,
      entityType: 'offer',
      entityId: offer._id,
      payload: {
        ...(await offerEventPayload(ctx, offer, links)),
        response: { decision, name, email, comment, at: response.at },
      },
    });
    return publicView(offer, offer.snapshot ?? {}, false);
  });
}
