import { z } from 'zod';
import { dateTimeView, idView, recordViewFields } from '../../platform/shared/views';

/** Response views of SMS, threads, scheduled SMS, SMS templates and the gateway webhook (spec: Email, SMS). */

const smsDirection = z.enum(['inbound', 'outbound']);
const smsStatus = z
  .enum(['queued', 'sent', 'delivered', 'failed', 'unknown', 'received'])
  .describe(
    'outbound: queued → sent → delivered, or failed / unknown (never re-sent automatically); inbound: received',
  );
const phoneNumber = z.string().describe('the counterparty number, normalised (optional + and digits)');

/** The summary of an SMS (GET /sms?view=summary). */
export const smsSummaryView = z.object({
  _id: idView,
  direction: smsDirection,
  from: z.string(),
  to: z.string(),
  body: z.string(),
  status: smsStatus,
  unread: z.boolean(),
  starred: z.boolean(),
  phoneNumber,
  createdAt: dateTimeView,
});
export type SmsSummaryView = z.infer<typeof smsSummaryView>;

/** One SMS, inbound or outbound. */
export const smsView = z.object({
  ...recordViewFields,
  direction: smsDirection,
  from: z.string(),
  to: z.string(),
  body: z.string(),
  status: smsStatus,
  providerMessageId: z.string().nullable().describe("the gateway's message id"),
  unread: z.boolean(),
  starred: z.boolean(),
  phoneNumber,
  personId: idView.nullable(),
  companyId: idView.nullable(),
  leadId: idView.nullable(),
  dealId: idView.nullable(),
  source: z.string().describe('api, automation, sequence (outbound) or gateway (inbound)'),
  sourceRef: z.string().nullable().describe('automation execution, sequence enrollment, scheduled SMS or bulk id'),
  error: z.string().nullable(),
  sentAt: dateTimeView.nullable(),
  deliveredAt: dateTimeView.nullable(),
});
export type SmsView = z.infer<typeof smsView>;

/** The contact a number resolves to by the crm-connect phone rule (person, else company, else lead). */
export const threadContactView = z.object({
  entityType: z.enum(['person', 'company', 'lead']),
  _id: idView,
  name: z.string(),
});

export const smsThreadRowView = z.object({
  phoneNumber,
  messageCount: z.number().int(),
  unreadCount: z.number().int().describe('unread inbound messages'),
  lastMessageAt: dateTimeView,
  lastMessage: smsView,
  contact: threadContactView.nullable(),
});
export type SmsThreadRowView = z.infer<typeof smsThreadRowView>;

export const smsThreadView = z.object({
  phoneNumber,
  contact: threadContactView.nullable(),
  unreadCount: z.number().int().describe('unread inbound messages'),
  messages: z.array(smsView).describe('this page of messages, newest first'),
});
export type SmsThreadView = z.infer<typeof smsThreadView>;

export const smsThreadMarkView = z.object({
  phoneNumber,
  updated: z.number().int().describe('messages whose unread flag changed'),
  unreadCount: z.number().int(),
});

export const smsBulkResultView = z.object({
  bulkId: z.string().describe('the idempotencyKey (or Idempotency-Key header) when given, else a new id'),
  summary: z.object({ total: z.number().int(), sent: z.number().int(), failed: z.number().int() }),
  results: z.array(
    z.object({
      index: z.number().int().describe('position in the request'),
      to: z.string(),
      status: z.enum(['sent', 'failed']),
      smsId: idView.optional(),
      replayed: z.boolean().optional().describe('true when an earlier send with the same key is answered'),
      error: z.string().optional(),
      code: z.string().optional().describe('the error code of a failed send, e.g. validation, upstream_failed'),
    }),
  ),
});
export type SmsBulkResultView = z.infer<typeof smsBulkResultView>;

export const scheduledSmsView = z.object({
  ...recordViewFields,
  to: z.string(),
  from: z.string(),
  message: z.string(),
  sendAt: dateTimeView,
  status: z.enum(['scheduled', 'sending', 'sent', 'failed', 'cancelled']),
  smsId: idView.nullable().describe('the SMS once sent'),
  error: z.string().nullable(),
  workflowId: z.string(),
  sentAt: dateTimeView.nullable(),
  cancelledAt: dateTimeView.nullable(),
  createdBy: idView,
  personId: idView.optional(),
  companyId: idView.optional(),
  leadId: idView.optional(),
  dealId: idView.optional(),
});
export type ScheduledSmsView = z.infer<typeof scheduledSmsView>;

export const smsTemplateView = z.object({
  ...recordViewFields,
  name: z.string(),
  message: z.string(),
  category: z.string().nullable(),
  createdBy: idView.nullable(),
  placeholders: z.array(z.string()).describe('the {{placeholders}} the message uses'),
});
export type SmsTemplateView = z.infer<typeof smsTemplateView>;

export const smsWebhookInfoView = z.object({
  url: z.string().describe('the URL to give the gateway'),
  secretSet: z.boolean(),
  secretHint: z.string().nullable().describe('****<last characters> of the secret'),
});

export const smsWebhookSecretView = z.object({
  url: z.string(),
  secret: z.string().describe('shown only in this answer'),
});

/** What the gateway webhook answers: an inbound message stored (or already stored), or a delivery report applied. */
export const smsWebhookResultView = z.union([
  z.object({ sms: smsView, contact: threadContactView.nullable() }),
  z.object({ sms: smsView, duplicate: z.literal(true).describe('the gateway message id was already stored') }),
  z.object({ matched: z.literal(false).describe('no outbound SMS has that id: acknowledged and ignored') }),
  z.object({ matched: z.literal(true), sms: smsView }),
]);
export type SmsWebhookResultView = z.infer<typeof smsWebhookResultView>;
