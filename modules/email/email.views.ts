import { z } from 'zod';
import { dateTimeView, idView, openObjectView, recordViewFields } from '../../platform/shared/views';
import { EMAIL_TEMPLATE_CATEGORIES } from './email-template.entity';

/** Response views of e-mail, e-mail accounts, templates, signatures and bulk sends (spec: Email, SMS, webhooks). */

const serverView = z.object({
  host: z.string(),
  port: z.number().int().nullable(),
  secure: z.boolean(),
});

/** A connected mailbox as the API shows it: hosts and ports, never user names, passwords or the inbound secret. */
export const emailAccountView = z.object({
  ...recordViewFields,
  name: z.string(),
  emailAddress: z.string(),
  displayName: z.string().nullable(),
  shared: z.boolean().describe('usable by every user of the workspace'),
  userIds: z.array(idView).describe('users who may use it (when not shared)'),
  status: z.enum(['untested', 'ok', 'failing']),
  lastTestedAt: dateTimeView.nullable(),
  lastError: z.string().nullable(),
  maxPerHour: z
    .number()
    .int()
    .nullable()
    .describe(
      'at most this many e-mails per calendar hour (UTC) from this mailbox, every sender together; null = no cap',
    ),
  maxPerDay: z.number().int().nullable().describe('at most this many e-mails per calendar day (UTC); null = no cap'),
  canSend: z.boolean(),
  canReceive: z.boolean().describe('IMAP is configured'),
  smtp: serverView,
  imap: serverView.nullable(),
});
export type EmailAccountView = z.infer<typeof emailAccountView>;

const emailDirection = z.enum(['outbound', 'inbound']);
const emailStatus = z.enum(['queued', 'sent', 'failed', 'unknown', 'received', 'bounced']);
const emailFolder = z.enum(['inbox', 'sent']).describe('inbox for received mail, sent for outbound');

/** The summary of an e-mail (lists with view=summary, the reply of an RSVP). */
export const emailSummaryView = z.object({
  _id: idView,
  accountId: idView.nullable().describe('null: sent by the workspace fallback sender'),
  direction: emailDirection,
  status: emailStatus,
  subject: z.string(),
  to: z.array(z.string()),
  threadId: idView,
  date: dateTimeView,
  from: z.string(),
  folder: emailFolder,
});
export type EmailSummaryView = z.infer<typeof emailSummaryView>;

/** One e-mail, sent or received. */
export const emailView = z.object({
  ...recordViewFields,
  accountId: idView.nullable().describe('null: sent by the workspace fallback sender'),
  direction: emailDirection,
  status: emailStatus,
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  messageId: z.string().nullable().describe('Message-ID header, with angle brackets'),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
  threadId: idView.describe("the thread's first e-mail id"),
  personId: idView.nullable(),
  companyId: idView.nullable(),
  dealId: idView.nullable(),
  leadId: idView.nullable(),
  source: z.string().nullable().describe('what sent it: api, automation, sequence, bulk, …'),
  sourceRef: z.string().nullable(),
  activityId: idView.nullable(),
  trackOpens: z.boolean(),
  openCount: z.number().int(),
  clickCount: z.number().int(),
  firstOpenedAt: dateTimeView.nullable(),
  error: z.string().nullable(),
  userId: idView.nullable().describe('who sent it; null for received mail'),
  date: dateTimeView,
  from: z.string(),
  folder: emailFolder,
  hasCalendarInvite: z.boolean(),
});
export type EmailView = z.infer<typeof emailView>;

/** The answer of POST /emails: the stored e-mail plus what the mail server said. */
export const sentEmailView = emailView.extend({
  accepted: z.array(z.string()).describe('recipients the mail server accepted'),
  rejected: z.array(z.string()).describe('recipients the mail server refused'),
  replayed: z.boolean().describe('true when an earlier send with the same idempotency key is answered'),
});
export type SentEmailView = z.infer<typeof sentEmailView>;

export const emailThreadView = z.object({
  threadId: idView,
  subject: z.string().describe("the first e-mail's subject"),
  count: z.number().int(),
  emails: z.array(emailView).describe('oldest first (at most 500)'),
});
export type EmailThreadView = z.infer<typeof emailThreadView>;

const inviteTime = z
  .string()
  .nullable()
  .describe('as written in the invite: YYYY-MM-DD (all day), YYYY-MM-DDThh:mm:ss (floating) or with Z (UTC)');

export const calendarInviteView = z.object({
  emailId: idView,
  method: z.string().nullable().describe('iCalendar METHOD, e.g. REQUEST'),
  uid: z.string(),
  summary: z.string().nullable(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  start: inviteTime,
  end: inviteTime,
  allDay: z.boolean(),
  sequence: z.number().int(),
  organizer: z.object({ email: z.string(), name: z.string().nullable() }).nullable(),
  attendees: z.array(
    z.object({
      email: z.string(),
      name: z.string().nullable(),
      status: z.string().nullable().describe('PARTSTAT as received, e.g. NEEDS-ACTION'),
    }),
  ),
  calendarEventId: idView.nullable().describe('the calendar event with the same UID, if any'),
  raw: z.string().nullable().describe('the text/calendar part as received'),
});
export type CalendarInviteView = z.infer<typeof calendarInviteView>;

export const rsvpResultView = z.object({
  emailId: idView,
  uid: z.string(),
  response: z.enum(['accepted', 'declined', 'tentative']),
  calendarEventId: idView.nullable(),
  reply: emailSummaryView.describe('the iCalendar REPLY sent to the organizer'),
});
export type RsvpResultView = z.infer<typeof rsvpResultView>;

export const inboundEmailResultView = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('received'),
    email: emailView,
    duplicate: z.boolean().describe('the Message-ID was already stored: nothing new was written'),
    replyTo: idView.nullable().describe('the e-mail this one answers'),
  }),
  z.object({
    kind: z.literal('bounced'),
    emailId: idView.nullable().describe('the original e-mail now marked bounced (null: not found)'),
    recipients: z.array(z.string()),
  }),
]);
export type InboundEmailResultView = z.infer<typeof inboundEmailResultView>;

const templateCategory = z.enum(EMAIL_TEMPLATE_CATEGORIES);
const templateMetadata = openObjectView.describe('subject, preheader and any other keys the editor keeps');

export const emailTemplateSummaryView = z.object({
  _id: idView,
  name: z.string(),
  category: templateCategory,
  metadata: templateMetadata,
  tags: z.array(z.string()),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type EmailTemplateSummaryView = z.infer<typeof emailTemplateSummaryView>;

export const emailTemplateView = emailTemplateSummaryView.extend({
  bodyHtml: z.string().nullable(),
  bodyCss: z.string().nullable(),
  compiledHtml: z.string().nullable().describe('the full document sent (built by the server unless given)'),
  plainText: z.string().nullable(),
  layoutSettings: openObjectView.describe('width, align, containerWidth and editor keys'),
  projectData: z.unknown().describe("the editor's project (any JSON, null when none)"),
  createdBy: idView.nullable(),
});
export type EmailTemplateView = z.infer<typeof emailTemplateView>;

export const emailSignatureView = z.object({
  ...recordViewFields,
  name: z.string(),
  content: z.string().describe('HTML'),
  textContent: z.string().nullable(),
  ownerId: idView.nullable(),
});
export type EmailSignatureView = z.infer<typeof emailSignatureView>;

const bulkSummaryView = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  unknown: z.number().int().describe('may have reached the mail server: never sent again automatically'),
});

export const bulkRecipientView = z.object({
  index: z.number().int().describe('position in the request'),
  email: z.string(),
  name: z.string().nullable(),
  personId: idView.nullable(),
  companyId: idView.nullable(),
  status: z.enum(['pending', 'sent', 'failed', 'unknown']),
  emailId: idView.nullable(),
  error: z.string().nullable(),
  sentAt: dateTimeView.nullable(),
});
export type BulkRecipientView = z.infer<typeof bulkRecipientView>;

export const bulkEmailCreatedView = z.union([
  z.object({
    queued: z.literal(true),
    queueId: idView,
    duplicatesRemoved: z.number().int().describe('addresses repeated in the request'),
    summary: bulkSummaryView,
  }),
  z.object({
    immediate: z.literal(true),
    queueId: idView,
    duplicatesRemoved: z.number().int().describe('addresses repeated in the request'),
    summary: bulkSummaryView,
    results: z.array(bulkRecipientView),
  }),
]);
export type BulkEmailCreatedView = z.infer<typeof bulkEmailCreatedView>;

export const bulkProgressView = z.object({
  queueId: idView,
  status: z.enum(['queued', 'sending', 'completed', 'failed']),
  accountId: idView,
  subject: z.string(),
  immediate: z.boolean(),
  trackOpens: z.boolean(),
  workflowId: z.string().nullable(),
  error: z.string().nullable(),
  createdBy: idView,
  createdAt: dateTimeView,
  finishedAt: dateTimeView.nullable(),
  summary: bulkSummaryView,
  recipients: z.array(bulkRecipientView).describe('this page of recipients, in send order'),
});
export type BulkProgressView = z.infer<typeof bulkProgressView>;
