/**
 * Webhook event types and the one table that maps outbox events (automation trigger vocabulary,
 * `company_created`) to them (`company.created`). Events of features that do not exist yet
 * (offers, contracts, bookings) are subscribable now and flow once those features emit them.
 */

const crud = (entity: string, webhook = entity): Record<string, string> => ({
  [`${entity}_created`]: `${webhook}.created`,
  [`${entity}_updated`]: `${webhook}.updated`,
  [`${entity}_deleted`]: `${webhook}.deleted`,
});

/** Outbox event type → webhook event type. Outbox events not listed here are never sent. */
export const OUTBOX_TO_WEBHOOK: Readonly<Record<string, string>> = {
  ...crud('company'),
  ...crud('person'),
  ...crud('lead'),
  ...crud('deal'),
  deal_stage_changed: 'deal.stage_changed',
  deal_won: 'deal.won',
  deal_lost: 'deal.lost',
  ...crud('task'),
  task_completed: 'task.completed',
  ...crud('note'),
  ...crud('call'),
  call_completed: 'call.completed',
  call_answered: 'call.answered',
  ...crud('event', 'calendar_event'),
  tag_added: 'tag.added',
  tag_removed: 'tag.removed',
  email_sent: 'email.sent',
  email_received: 'email.received',
  email_opened: 'email.opened',
  email_clicked: 'email.clicked',
  email_replied: 'email.replied',
  email_bounced: 'email.bounced',
  sms_sent: 'sms.sent',
  sms_received: 'sms.received',
  sms_replied: 'sms.replied',
  sequence_enrolled: 'sequence.enrolled',
  sequence_completed: 'sequence.completed',
  sequence_exited: 'sequence.exited',
  sequence_paused: 'sequence.paused',
  sequence_resumed: 'sequence.resumed',
  sequence_unenrolled: 'sequence.unenrolled',
  offer_sent: 'offer.sent',
  contract_sent: 'contract.sent',
  contract_signed: 'contract.signed',
  contract_completed: 'contract.completed',
  contract_declined: 'contract.declined',
  contract_expired: 'contract.expired',
  contract_voided: 'contract.voided',
  booking_created: 'booking.created',
  booking_cancelled: 'booking.cancelled',
  booking_rescheduled: 'booking.rescheduled',
  booking_approved: 'booking.approved',
  booking_rejected: 'booking.rejected',
  offer_accepted: 'offer.accepted',
  offer_rejected: 'offer.declined',
};

/** Sent only by `POST /webhooks/subscriptions/:id/test`, whatever the subscription's events. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** Every event type a subscription may name (sorted), plus `*` for all of them. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [...new Set(Object.values(OUTBOX_TO_WEBHOOK))].sort();
export const ALL_EVENTS = '*';

export const webhookTypeOf = (outboxType: string): string | undefined => OUTBOX_TO_WEBHOOK[outboxType];

/** Whether a subscription to `events` receives `type`. */
export const subscribedTo = (events: readonly string[], type: string): boolean =>
  events.includes(ALL_EVENTS) || events.includes(type);

/** One line per mapping for the docs: `company.created ← company_created`. */
export const eventTypesDoc = (): string =>
  Object.entries(OUTBOX_TO_WEBHOOK)
    .map(([from, to]) => `\`${to}\` (outbox \`${from}\`)`)
    .join(', ');
