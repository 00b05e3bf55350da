import { z } from 'zod';
import { pageParams } from '../shared/list-query';
import { dateTimeView, idView, recordViewFields } from '../shared/views';

/**
 * queued: waiting behind an earlier delivery of its record (or retried by an operator); failing:
 * failed at least once and retried on the schedule; failed: given up (permanent refusal or schedule
 * exhausted); dropped: an operator dropped it.
 */
export const DELIVERY_STATES = ['queued', 'failing', 'failed', 'dropped'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const listOutboxDeliveriesQuery = z.object({
  ...pageParams(100),
  subscriber: z.string().trim().min(1).max(80).optional(),
  status: z.enum(DELIVERY_STATES, { message: `must be one of: ${DELIVERY_STATES.join(', ')}` }).optional(),
});
export type ListOutboxDeliveriesQuery = z.infer<typeof listOutboxDeliveriesQuery>;

export const outboxDeliveryView = z.object({
  ...recordViewFields,
  subscriber: z.string().describe('the outbox subscriber (booking-notifications, search-index, automations, …)'),
  eventId: idView.describe('the outbox event'),
  eventType: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  occurredAt: dateTimeView,
  status: z.enum(DELIVERY_STATES),
  attempts: z.number().int().min(0),
  lastError: z.string().nullable(),
  lastAttemptAt: dateTimeView.nullable(),
  nextAttemptAt: dateTimeView.nullable().describe('queued and failing only'),
});
export type OutboxDeliveryView = z.infer<typeof outboxDeliveryView>;
