/**
 * Webhook event types and the one table that maps outbox events (automation trigger vocabulary,
 * `company_created`) to them (`company.created`). Events of features that do not exist yet
 * (offers, contracts, bookings) are subscribable now and flow once those features emit them.
 * Every mapped name is a declared event (catalog.ts) or listed in UNEMITTED_WEBHOOK_SOURCES.
 */
import type { EventName } from '../../platform/outbox/catalog';

/**
 * Mapped names that no code emits (no declared event): their webhook types can be subscribed to
 * and are never sent. The event catalog test fails once one of them is declared.
 */
export const UNEMITTED_WEBHOOK_SOURCES = ['task_completed'] as const;
type WebhookSource = EventName | (typeof UNEMITTED_WEBHOOK_SOURCES)[number];

type Crud<E extends string> = `${E}_created` | `${E}_updated` | `${E}_deleted`;
/** Entities with all three of `<entity>_created`, `_updated`, `_deleted`. */
type CrudEntity = {
  [K in WebhookSource]: K extends `${infer E}_created` ? (Crud<E> extends WebhookSource ? E : never) : never;
}[WebhookSource];
const crud = <E extends CrudEntity>(entity: E, webhook: string = entity) =>
  ({
    [`${entity}_created`]: `${webhook}.created`,
    [`${entity}_updated`]: `${webhook}.updated`,
    [`${entity}_deleted`]: `${webhook}.deleted`,
  }) as Record<Crud<E>, string>;

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
  contract_invitation_failed: 'contract.invitation_failed',
  contract_signer_corrected: 'contract.signer_corrected',
  contract_invitation_resent: 'contract.invitation_resent',
  contract_extended: 'contract.extended',
  booking_created: 'booking.created',
  booking_cancelled: 'booking.cancelled',
  booking_rescheduled: 'booking.rescheduled',
  booking_approved: 'booking.approved',
  booking_rejected: 'booking.rejected',
  booking_approval_requested: 'booking.approval_requested',
  booking_approval_reminder: 'booking.approval_reminder',
  offer_accepted: 'offer.accepted',
  offer_rejected: 'offer.declined',
} satisfies Partial<Record<WebhookSource, string>>;

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
