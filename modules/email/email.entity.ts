import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export type EmailDirection = 'outbound' | 'inbound';
/** queued/sent/failed/unknown mirror the outbound claim; received and bounced are inbound states. */
export type EmailStatus = 'queued' | 'sent' | 'failed' | 'unknown' | 'received' | 'bounced';

/**
 * One e-mail, sent or received. A sent e-mail shares its `_id` with its outbound_message claim
 * (the idempotent hand-over), so events about it name the same id. Threads group by `threadId`
 * (the first message's id), found through Message-ID / In-Reply-To / References.
 */
export const Email = defineEntity({
  name: 'Email',
  tableName: 'email',
  indexes: workspaceIndexes('createdAt', 'threadId', 'messageId', 'personId', 'accountId'),
  uniques: [
    // A received message is stored once per mailbox (Message-ID), even when two deliveries race.
    {
      name: 'email_inbound_message_unique',
      expression: `create unique index "email_inbound_message_unique" on "email" ("workspace_id", "account_id", "message_id") where "direction" = 'inbound'`,
    },
  ],
  properties: {
    ...tenantProps,
    /** Null: sent through the workspace fallback sender (MAIL_FROM). */
    accountId: p.string().length(24).nullable(),
    direction: p.string().length(10).$type<EmailDirection>(),
    status: p.string().length(10).$type<EmailStatus>(),
    fromAddress: p.string().length(500),
    to: p.json<string[]>(),
    cc: p.json<string[]>(),
    bcc: p.json<string[]>(),
    subject: p.string().length(1000),
    html: p.text().nullable(),
    text: p.text().nullable(),
    /** Message-ID header with angle brackets. */
    messageId: p.string().length(1000).nullable(),
    inReplyTo: p.string().length(1000).nullable(),
    references: p.json<string[]>(),
    threadId: p.string().length(24),
    personId: p.string().length(24).nullable(),
    companyId: p.string().length(24).nullable(),
    dealId: p.string().length(24).nullable(),
    leadId: p.string().length(24).nullable(),
    source: p.string().length(20).nullable(),
    sourceRef: p.string().length(200).nullable(),
    activityId: p.string().length(24).nullable(),
    trackOpens: p.boolean().default(false),
    openCount: p.integer().default(0),
    clickCount: p.integer().default(0),
    firstOpenedAt: p.datetime().nullable(),
    error: p.text().nullable(),
    /** Who sent it (API caller or run actor); null for received mail. */
    userId: p.string().length(24).nullable(),
    date: p.datetime(),
    /** The text/calendar part of a received invite, as received. */
    calendarInvite: p.text().nullable(),
  },
});
export type Email = InferEntity<typeof Email>;
