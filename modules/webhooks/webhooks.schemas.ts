import { z } from 'zod';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './event-types';
import { boolParam, pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId } from '../../platform/shared/schemas';
import { dateTimeView, idView, recordViewFields } from '../../platform/shared/views';

export const MAX_EVENTS = 100;

const eventType = z.enum([ALL_EVENTS, ...WEBHOOK_EVENT_TYPES] as [string, ...string[]], {
  message: 'unknown event type (see the Webhooks section of GET /api/v1/docs for the list, or "*" for all)',
});

const fields = {
  // The scheme and host rules depend on OUTBOUND_ALLOW_HOSTS, so the service checks them (400).
  url: z.string().trim().min(1, 'is required').max(2048, 'must be at most 2048 characters'),
  events: z
    .array(eventType)
    .min(1, 'must name at least one event type (or "*")')
    .max(MAX_EVENTS, `at most ${MAX_EVENTS} event types`),
  name: clearableText(200),
  active: z.boolean(),
};

export const createSubscriptionBody = z
  .object({ url: fields.url, events: fields.events })
  .extend(z.object({ name: fields.name, active: fields.active }).partial().shape);
export const updateSubscriptionBody = z.object(fields).partial();
export const listSubscriptionsQuery = z.object({ ...pageParams(100), active: boolParam.optional() });
export const listDeliveriesQuery = z.object({
  ...pageParams(100),
  status: z
    .enum(['pending', 'retrying', 'delivered', 'failed'], {
      message: 'must be one of: pending, retrying, delivered, failed',
    })
    .optional(),
});
export const deliveryParams = z.object({ id: objectId, deliveryId: objectId });

/** What the service writes: the parsed updateSubscriptionBody (create bodies add their required fields). */
export type SubscriptionInput = z.infer<typeof updateSubscriptionBody>;

const deliveryStatusView = z.enum(['pending', 'retrying', 'delivered', 'failed']);

/** A subscription as the API shows it; `secret` is masked except in the create and rotate answers. */
export const webhookSubscriptionView = z.object({
  ...recordViewFields,
  name: z.string().nullable(),
  url: z.string(),
  events: z.array(z.string()).describe('event types, or ["*"] for all'),
  active: z.boolean(),
  disabledReason: z.string().nullable().describe('why the product disabled it (410, repeated failures)'),
  disabledAt: dateTimeView.nullable(),
  failedDeliveriesInRow: z.number().int(),
  lastSuccessAt: dateTimeView.nullable(),
  lastFailureAt: dateTimeView.nullable(),
  previousSecretExpiresAt: dateTimeView
    .nullable()
    .describe('until when the previous secret still signs (null when there is none or it expired)'),
  createdBy: idView,
  secret: z
    .string()
    .describe('whsec_**** + the last 4 characters; the whole secret only in the create and rotate-secret answers'),
});
export type WebhookSubscriptionView = z.infer<typeof webhookSubscriptionView>;

export const webhookDeliveryView = z.object({
  ...recordViewFields,
  subscriptionId: idView,
  eventId: idView.nullable().describe('the outbox event id (null for test events)'),
  eventType: z.string(),
  status: deliveryStatusView,
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastDurationMs: z.number().int().nullable(),
  lastAttemptAt: dateTimeView.nullable(),
  nextAttemptAt: dateTimeView.nullable(),
  deliveredAt: dateTimeView.nullable(),
  webhookId: z.string().describe('msg_<deliveryId>: the webhook-id header of every attempt'),
});
export type WebhookDeliveryView = z.infer<typeof webhookDeliveryView>;
