import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import { timeEntryProps } from '../projects';
import type { SupportStage, TicketPriority, TicketStatus } from './support.rules';

/**
 * The workspace's support flow (one per workspace, created lazily): kanban stages with numeric ids,
 * the allowed ticket categories, the mailboxes whose mail opens tickets, and the ticket counter.
 */
export const SupportFlow = defineEntity({
  name: 'SupportFlow',
  tableName: 'support_flow',
  uniques: [{ properties: ['workspaceId'] }],
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    stages: p.json<SupportStage[]>(),
    categories: p.json<string[]>(),
    mailboxAccountIds: p.array().default([]),
    ticketSeq: p.integer().default(0),
  },
});
export type SupportFlow = InferEntity<typeof SupportFlow>;

/** How a ticket was opened: through the API or by received mail. */
export const TICKET_SOURCES = ['api', 'email'] as const;
export type TicketSource = (typeof TICKET_SOURCES)[number];

export const SupportTicket = defineEntity({
  name: 'SupportTicket',
  tableName: 'support_ticket',
  uniques: [{ properties: ['workspaceId', 'ticketNumber'] }],
  indexes: workspaceIndexes('createdAt', 'status', 'personRef', 'customerEmail'),
  properties: {
    ...tenantProps,
    ticketNumber: p.integer(),
    title: p.string().length(300),
    description: p.text().nullable(),
    status: p.string().length(20).$type<TicketStatus>().default('open'),
    priority: p.string().length(10).$type<TicketPriority>().default('medium'),
    category: p.string().length(100),
    assignee: p.string().length(24).nullable(),
    company: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    customerEmail: p.string().length(320).nullable(),
    customerName: p.string().length(300).nullable(),
    visitorId: p.string().length(100).nullable(),
    tags: p.array().default([]),
    customFields: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    resolution: p.text().nullable(),
    flowId: p.string().length(24),
    stageId: p.integer(),
    source: p.string().length(10).$type<TicketSource>().default('api'),
    /** Customer messages since the last public answer of an agent. */
    unreadCount: p.integer().default(0),
    lastActivityAt: p.datetime(),
    firstResponseAt: p.datetime().nullable(),
    resolvedAt: p.datetime().nullable(),
    closedAt: p.datetime().nullable(),
  },
});
export type SupportTicket = InferEntity<typeof SupportTicket>;

export const MESSAGE_VISIBILITIES = ['public', 'internal'] as const;
export type MessageVisibility = (typeof MESSAGE_VISIBILITIES)[number];
export const MESSAGE_DIRECTIONS = ['inbound', 'outbound', 'internal'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
/** reply and note are an agent's answers; email is a message received from the customer. */
export const MESSAGE_TYPES = ['reply', 'note', 'email'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const SupportTicketMessage = defineEntity({
  name: 'SupportTicketMessage',
  tableName: 'support_ticket_message',
  indexes: workspaceIndexes(['ticketId', 'createdAt'], 'messageId'),
  uniques: [
    {
      name: 'support_ticket_message_email_unique',
      expression: `create unique index "support_ticket_message_email_unique" on "support_ticket_message" ("workspace_id", "email_id") where "email_id" is not null`,
    },
  ],
  properties: {
    ...tenantProps,
    ticketId: p.string().length(24),
    type: p.string().length(20).$type<MessageType>(),
    visibility: p.string().length(10).$type<MessageVisibility>(),
    direction: p.string().length(10).$type<MessageDirection>(),
    content: p.text(),
    authorUserId: p.string().length(24).nullable(),
    fromAddress: p.string().length(500).nullable(),
    /** The e-mail row (sent reply or received message) and its Message-ID header, for threading. */
    emailId: p.string().length(24).nullable(),
    messageId: p.string().length(1000).nullable(),
  },
});
export type SupportTicketMessage = InferEntity<typeof SupportTicketMessage>;

export const SupportTimeEntry = defineEntity({
  name: 'SupportTimeEntry',
  tableName: 'support_time_entry',
  indexes: workspaceIndexes(['ticketId', 'date']),
  properties: {
    ...tenantProps,
    ticketId: p.string().length(24),
    ...timeEntryProps,
  },
});
export type SupportTimeEntry = InferEntity<typeof SupportTimeEntry>;
