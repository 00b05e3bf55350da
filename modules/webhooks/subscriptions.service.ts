import { isIP } from 'node:net';
import type { AppConfig } from '../../platform/config';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { isHostAllowed, nonPublicReason, normalizeHost } from '../../platform/net/address-policy';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { ALL_EVENTS } from './event-types';
import { generateSecret, maskWebhookSecret, openSecret, sealSecret } from './secrets';
import { WebhookDelivery, WebhookSubscription } from './webhook.entity';
import type { SubscriptionInput, WebhookSubscriptionView } from './webhooks.schemas';
import { getRecord } from '../../platform/shared/record-service';

/** How long the previous secret keeps signing after a rotation (both signatures are sent meanwhile). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const FIELDS = [
  '_id',
  'name',
  'url',
  'events',
  'active',
  'disabledReason',
  'disabledAt',
  'failedDeliveriesInRow',
  'lastSuccessAt',
  'lastFailureAt',
  'previousSecretExpiresAt',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;

/** The read view: the secret masked (`whsec_****` + its last 4 characters). */
export function serializeSubscription(sub: WebhookSubscription, config: AppConfig): WebhookSubscriptionView {
  const expired = sub.previousSecretExpiresAt && sub.previousSecretExpiresAt.getTime() <= Date.now();
  return {
    ...plainOf(sub, FIELDS),
    ...(expired ? { previousSecretExpiresAt: null } : {}),
    secret: maskWebhookSecret(openSecret(sub.secret, config.webhooks.encryptionKey)),
  };
}

/**
 * https anywhere; http only to hosts in OUTBOUND_ALLOW_HOSTS (tests, private deployments). IP
 * literals and `localhost` that are not public are refused here already; names are checked
 * again after DNS resolution on every delivery (safe-fetch).
 */
export function assertWebhookUrl(raw: string, allowHosts: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validation('url: must be an absolute URL', [{ path: 'url', error: 'must be an absolute URL' }]);
  }
  const host = normalizeHost(url.hostname);
  const allowed = isHostAllowed(host, allowHosts);
  const fail = (why: string) => validation(`url: ${why}`, [{ path: 'url', error: why }]);
  if (url.protocol === 'http:' && !allowed) throw fail('must use https (http only for hosts in OUTBOUND_ALLOW_HOSTS)');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail('must be an https URL');
  if (!host) throw fail('must name a host');
  if (!allowed && (host === 'localhost' || host.endsWith('.localhost'))) throw fail('must not point at localhost');
  if (!allowed && isIP(host) && nonPublicReason(host))
    throw fail(`must not point at a ${nonPublicReason(host)} address`);
  return url.href;
}

const normalizeEvents = (events: string[]): string[] =>
  events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];

const find = async (ctx: Ctx, id: string): Promise<WebhookSubscription> => {
  const sub = await getRecord(ctx, WebhookSubscription, id, 'webhook subscription');
  return sub;
};
export const getSubscription = find;

export async function listSubscriptions(ctx: Ctx, config: AppConfig, query: PageRequest & { active?: boolean }) {
  const where: Record<string, unknown> = {};
  if (query.active !== undefined) where.active = query.active;
  const { items, total } = await findPage(ctx.em, WebhookSubscription, where, query, { createdAt: 'desc' });
  return { items: items.map((s) => serializeSubscription(s, config)), total };
}

/** Creates the subscription; the answer carries the whole secret, the only time it is shown. */
export async function createSubscription(
  ctx: Ctx,
  config: AppConfig,
  input: SubscriptionInput & { url: string; events: string[] },
): Promise<WebhookSubscriptionView> {
  const secret = generateSecret();
  const sub = createRecord(ctx, WebhookSubscription, {
    name: input.name ?? null,
    url: assertWebhookUrl(input.url, config.outboundAllowHosts),
    events: normalizeEvents(input.events),
    active: input.active ?? true,
    secret: sealSecret(secret, config.webhooks.encryptionKey),
    failedDeliveriesInRow: 0,
    createdBy: ctx.actor.userId,
  });
  await ctx.em.flush();
  return { ...serializeSubscription(sub, config), secret };
}

export async function updateSubscription(ctx: Ctx, config: AppConfig, id: string, input: SubscriptionInput) {
  const sub = await find(ctx, id);
  if (input.url !== undefined) sub.url = assertWebhookUrl(input.url, config.outboundAllowHosts);
  if (input.events !== undefined) sub.events = normalizeEvents(input.events);
  if (input.name !== undefined) sub.name = input.name;
  if (input.active !== undefined && input.active !== sub.active) {
    sub.active = input.active;
    // Re-activating starts a fresh failure streak; the reason of the last disable is cleared.
    if (input.active) Object.assign(sub, { disabledReason: null, disabledAt: null, failedDeliveriesInRow: 0 });
  }
  sub.updatedAt = new Date();
  await ctx.em.flush();
  return serializeSubscription(sub, config);
}

/** Deletes the subscription and its delivery log; retry workflows in flight find nothing and end. */
export async function deleteSubscription(ctx: Ctx, id: string): Promise<void> {
  const sub = await find(ctx, id);
  await ctx.em.nativeDelete(WebhookDelivery, { subscriptionId: sub._id });
  ctx.em.remove(sub);
  await ctx.em.flush();
}

/**
 * New secret; the current one becomes the previous one and keeps signing for 24 hours (receivers
 * verify whichever they hold). Rotating again within the overlap drops the oldest secret.
 */
export async function rotateSecret(ctx: Ctx, config: AppConfig, id: string): Promise<WebhookSubscriptionView> {
  const sub = await find(ctx, id);
  const secret = generateSecret();
  sub.previousSecret = sub.secret;
  sub.previousSecretExpiresAt = new Date(Date.now() + ROTATION_OVERLAP_MS);
  sub.secret = sealSecret(secret, config.webhooks.encryptionKey);
  sub.updatedAt = new Date();
  await ctx.em.flush();
  return { ...serializeSubscription(sub, config), secret };
}
