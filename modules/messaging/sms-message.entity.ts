import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export type SmsDirection = 'inbound' | 'outbound';
/**
 * Outbound: queued → sent → delivered (delivery report), or failed / unknown (outcome unknown,
 * never re-sent automatically). Inbound: received.
 */
export type SmsStatus = 'queued' | 'sent' | 'delivered' | 'failed' | 'unknown' | 'received';
export const SMS_STATUSES: readonly SmsStatus[] = ['queued', 'sent', 'delivered', 'failed', 'unknown', 'received'];

/**
 * One visible SMS, inbound or outbound. An outbound SMS shares its `_id` with its
 * `outbound_message` claim row (the idempotency record), so the gateway's Idempotency-Key, the
 * `sms_sent` event and this record all carry the same id.
 */
export const SmsMessage = defineEntity({
  name: 'SmsMessage',
  tableName: 'sms_message',
  indexes: workspaceIndexes(
    'createdAt',
    ['phoneNumber', 'createdAt'],
    'phoneTail',
    ['personId', 'createdAt'],
    'providerMessageId',
  ),
  properties: {
    ...tenantProps,
    direction: p.string().length(10).$type<SmsDirection>(),
    from: p.string().length(40),
    to: p.string().length(40),
    body: p.text(),
    status: p.string().length(12).$type<SmsStatus>(),
    providerMessageId: p.string().length(1000).nullable(),
    unread: p.boolean().default(false),
    starred: p.boolean().default(false),
    /**
     * The counterparty (to for outbound, from for inbound) normalised by the crm-connect phone rule: optional + and
     * digits.
     */
    phoneNumber: p.string().length(24),
    /** Its last 8 digits: the pre-filter of phone matching (crm-connect rule). */
    phoneTail: p.string().length(8),
    personId: p.string().length(24).nullable(),
    companyId: p.string().length(24).nullable(),
    leadId: p.string().length(24).nullable(),
    dealId: p.string().length(24).nullable(),
    /** api, automation, sequence (outbound) or gateway (inbound). */
    source: p.string().length(20),
    /** Automation execution, sequence enrollment or scheduled SMS id behind an outbound send. */
    sourceRef: p.string().length(100).nullable(),
    activityId: p.string().length(24).nullable(),
    error: p.text().nullable(),
    sentAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
  },
});
export type SmsMessage = InferEntity<typeof SmsMessage>;

export type ScheduledSmsStatus = 'scheduled' | 'sending' | 'sent' | 'failed' | 'cancelled';
export const SCHEDULED_SMS_STATUSES: readonly ScheduledSmsStatus[] = [
  'scheduled',
  'sending',
  'sent',
  'failed',
  'cancelled',
];

/** One SMS waiting for its time; a Temporal workflow (`sms-scheduled:<ws>:<id>`) holds the durable timer. */
export const ScheduledSms = defineEntity({
  name: 'ScheduledSms',
  tableName: 'sms_scheduled',
  indexes: workspaceIndexes('sendAt', ['status', 'sendAt']),
  properties: {
    ...tenantProps,
    to: p.string().length(40),
    from: p.string().length(40),
    message: p.text(),
    sendAt: p.datetime(),
    status: p.string().length(12).$type<ScheduledSmsStatus>(),
    links: p.json<{ personId?: string; companyId?: string; leadId?: string; dealId?: string }>(),
    smsId: p.string().length(24).nullable(),
    error: p.text().nullable(),
    workflowId: p.string().length(100),
    createdBy: p.string().length(24),
    sentAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export type ScheduledSms = InferEntity<typeof ScheduledSms>;

/** Reusable SMS texts with {{placeholders}} (GET /sms-templates; admin writes beyond the spec). */
export const SmsTemplate = defineEntity({
  name: 'SmsTemplate',
  tableName: 'sms_template',
  uniques: [{ properties: ['workspaceId', 'name'] }],
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    message: p.text(),
    category: p.string().length(60).nullable(),
    createdBy: p.string().length(24).nullable(),
  },
});
export type SmsTemplate = InferEntity<typeof SmsTemplate>;

/** Per-workspace SMS settings: the inbound webhook secret (SHA-256 only; shown once when created). */
export const SmsWorkspaceSettings = defineEntity({
  name: 'SmsWorkspaceSettings',
  tableName: 'sms_settings',
  uniques: [{ properties: ['workspaceId'] }],
  properties: {
    ...tenantProps,
    webhookSecretHash: p.string().length(64).nullable(),
    webhookSecretHint: p.string().length(8).nullable(),
  },
});
export type SmsWorkspaceSettings = InferEntity<typeof SmsWorkspaceSettings>;
