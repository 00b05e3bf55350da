import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';

/** An outbound webhook endpoint of a workspace. Secrets are sealed (secrets.ts), never returned. */
export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscription',
  properties: {
    ...tenantProps,
    name: p.string().length(200).nullable(),
    url: p.string().length(2048),
    events: p.array(),
    active: p.boolean().default(true),
    secret: p.text(),
    /** The secret before the last rotation: deliveries are signed with both until it expires. */
    previousSecret: p.text().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    /** Why the product disabled it (410, repeated failures); cleared when a client re-activates it. */
    disabledReason: p.string().length(500).nullable(),
    disabledAt: p.datetime().nullable(),
    /** Deliveries in a row that failed every attempt; reset by any success. */
    failedDeliveriesInRow: p.integer().default(0),
    lastSuccessAt: p.datetime().nullable(),
    lastFailureAt: p.datetime().nullable(),
    createdBy: p.string().length(24),
  },
});
export type WebhookSubscription = InferEntity<typeof WebhookSubscription>;

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

/**
 * One event for one subscription. `body` is the exact JSON sent on every attempt (re-signed with
 * the attempt's timestamp); `webhook-id` is `msg_<_id>` on every attempt.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  indexes: [{ properties: ['subscriptionId', 'createdAt'] }],
  uniques: [{ properties: ['subscriptionId', 'eventId'] }],
  properties: {
    ...tenantProps,
    subscriptionId: p.string().length(24),
    /** The outbox event id (null for test events). */
    eventId: p.string().length(24).nullable(),
    eventType: p.string().length(80),
    body: p.text(),
    status: p.string().length(10).$type<DeliveryStatus>(),
    attempts: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastError: p.string().length(1000).nullable(),
    lastDurationMs: p.integer().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    /** Last retry-workflow step recorded: a retried activity does not attempt the same step twice. */
    retryStep: p.integer().default(0),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
