import { z } from 'zod';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from './event-types';
import { boolParam, pageParams } from '../shared/list-query';
import { clearableText, objectId } from '../shared/schemas';

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
