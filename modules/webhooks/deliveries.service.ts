import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { applyResult, attempt, recordOnSubscription, type AttemptDeps } from './attempts';
import { TEST_EVENT_TYPE } from './event-types';
import { webhookIdOf } from './ports';
import { getSubscription } from './subscriptions.service';
import { WebhookDelivery, type DeliveryStatus } from './webhook.entity';
import type { WebhookDeliveryView } from './webhooks.schemas';

const FIELDS = [
  '_id',
  'subscriptionId',
  'eventId',
  'eventType',
  'status',
  'attempts',
  'lastStatusCode',
  'lastError',
  'lastDurationMs',
  'lastAttemptAt',
  'nextAttemptAt',
  'deliveredAt',
  'createdAt',
  'updatedAt',
] as const;

export function serializeDelivery(d: WebhookDelivery): WebhookDeliveryView {
  return { ...plainOf(d, FIELDS), webhookId: webhookIdOf(d._id) };
}

export async function listDeliveries(
  ctx: Ctx,
  subscriptionId: string,
  query: PageRequest & { status?: DeliveryStatus },
) {
  await getSubscription(ctx, subscriptionId);
  const where: Record<string, unknown> = { subscriptionId };
  if (query.status) where.status = query.status;
  const { items, total } = await findPage(ctx.em, WebhookDelivery, where, query, { createdAt: 'desc' });
  return { items: items.map(serializeDelivery), total };
}

export async function getDelivery(ctx: Ctx, id: string, subscriptionId?: string): Promise<WebhookDelivery> {
  const d = await ctx.em.findOne(WebhookDelivery, subscriptionId ? { _id: id, subscriptionId } : { _id: id });
  if (!d) throw notFound('webhook delivery');
  return d;
}

/**
 * Sends a delivery again now, with the same `webhook-id` and body (newly signed). A delivery that
 * is still being retried keeps its schedule when the replay fails; a success ends its retries.
 */
export async function replayDelivery(ctx: Ctx, deps: AttemptDeps, subscriptionId: string, deliveryId: string) {
  const sub = await getSubscription(ctx, subscriptionId);
  const delivery = await getDelivery(ctx, deliveryId, subscriptionId);
  if (!sub.active)
    throw new DomainError(
      'invalid_state',
      'the subscription is disabled; activate it (PUT active: true) before replaying',
    );
  const before = { status: delivery.status, nextAttemptAt: delivery.nextAttemptAt };
  const result = await attempt(deps, sub, delivery);
  applyResult(delivery, result, null);
  if (!result.ok && !result.gone && before.status === 'retrying') Object.assign(delivery, before);
  await ctx.em.flush();
  await recordOnSubscription(ctx.em, deps.config, sub._id, result, false);
  return serializeDelivery(delivery);
}

/** Sends a `webhook.test` event now (whatever the subscription's events, active or not); not retried. */
export async function sendTestEvent(ctx: Ctx, deps: AttemptDeps, subscriptionId: string) {
  const sub = await getSubscription(ctx, subscriptionId);
  const now = new Date();
  const body = JSON.stringify({
    type: TEST_EVENT_TYPE,
    timestamp: now.toISOString(),
    data: { subscriptionId: sub._id, message: 'Test event from the CRM webhook settings' },
  });
  const delivery = createRecord(ctx, WebhookDelivery, {
    subscriptionId: sub._id,
    eventId: null,
    eventType: TEST_EVENT_TYPE,
    body,
    status: 'pending',
    attempts: 0,
    retryStep: 0,
  });
  const result = await attempt(deps, sub, delivery);
  applyResult(delivery, result, null);
  await ctx.em.flush();
  return serializeDelivery(delivery);
}
