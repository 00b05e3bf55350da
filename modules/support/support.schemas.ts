import { z } from 'zod';
import { MESSAGE_DIRECTIONS, MESSAGE_TYPES, MESSAGE_VISIBILITIES, TICKET_SOURCES } from './support.entity';
import { TICKET_PRIORITIES, TICKET_STATUSES } from './support.rules';
import { pageParams } from '../../platform/shared/list-query';
import { clearableEmail, clearableText, objectId, requiredText, tagsField } from '../../platform/shared/schemas';
import { customFieldMap, refField, userId } from '../../platform/shared/record-fields';
import { customFieldsView, dateTimeView, idView, recordViewFields } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';
import { timeEntryDetails, timeEntryHours, timeEntryMinutes, timeEntryViewFields } from '../projects';

export const REPLY_TYPES = ['reply', 'note'] as const;
export type ReplyType = (typeof REPLY_TYPES)[number];

const status = z.enum(TICKET_STATUSES, { message: `must be one of ${TICKET_STATUSES.join(', ')}` });
const priority = z.enum(TICKET_PRIORITIES, { message: `must be one of ${TICKET_PRIORITIES.join(', ')}` });
const visibility = z.enum(MESSAGE_VISIBILITIES, { message: `must be one of ${MESSAGE_VISIBILITIES.join(', ')}` });
const category = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

const ticketFields = {
  description: clearableText(50_000),
  priority: priority.describe(`${TICKET_PRIORITIES.join(', ')}; default medium`),
  category: category.describe('one of GET /support-tickets/categories; default the first category (general)'),
  assignee: ref('user', refField).describe('user id of this workspace'),
  company: ref('company', refField).describe("company id (default: the person's company)"),
  personRef: ref('person', refField).describe('person id (the customer)'),
  customerEmail: clearableEmail.describe("customer address for e-mail replies; default the person's first e-mail"),
  customerName: clearableText(300),
  visitorId: clearableText(100).describe('chat visitor id (support customers of type visitor)'),
  tags: tagsField,
};

export const createTicketBody = z.object({ title: requiredText(300) }).extend(z.object(ticketFields).partial().shape);
export const updateTicketBody = createTicketBody.partial().extend(
  z
    .object({
      status: status.describe(`${TICKET_STATUSES.join(', ')}; transitions in the docs (409 invalid_state otherwise)`),
      resolution: clearableText(50_000),
      customFields: customFieldMap.describe('merged partially'),
    })
    .partial().shape,
);

export const listTicketsQuery = z.object({
  ...pageParams(100),
  status: status.optional(),
  priority: priority.optional(),
  assignee: userId.optional(),
  category: category.optional(),
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe('title, description, customer name or e-mail; `#123` or `123` also matches the ticket number'),
});

// content is required; the domain checks it after the ticket lookup, so an unknown ticket answers 404 first.
export const replyBody = z.object({
  content: z
    .string({ message: 'must be a string' })
    .max(100_000, 'must be at most 100000 characters')
    .optional()
    .describe('required; text or HTML'),
  type: z
    .enum(REPLY_TYPES, { message: `must be one of ${REPLY_TYPES.join(', ')}` })
    .optional()
    .describe('reply (default) or note (always internal)'),
  visibility: visibility
    .optional()
    .describe('public (default for replies: e-mailed to the customer) or internal (default for notes)'),
});

// Any stageId shape passes here so an unknown ticket answers 404 first; the domain answers 400 for a bad stage.
export const moveTicketBody = z.object({
  stageId: z.union([z.number(), z.string().max(50)], { message: 'is required (a support stage id, number)' }),
  flowId: ref('support-flow', objectId).optional().describe('the support flow (GET /support-flow); optional'),
});

export const messagesQuery = z.object({
  page: pageParams(200).page,
  limit: pageParams(200).limit.default(50),
  visibility: visibility.optional(),
});

export const ticketTimeQuery = z.object(pageParams(100));
export const ticketTimeBody = z.object({ hours: timeEntryHours, minutes: timeEntryMinutes, ...timeEntryDetails });

export const SUPPORT_SORTS = ['lastActivityAt', 'totalTickets', 'openTickets', 'unread'] as const;
export const supportCustomersQuery = z.object({
  ...pageParams(100),
  search: z.string().trim().max(200).optional(),
  q: z.string().trim().max(200).optional().describe('alias of search'),
  sortBy: z.enum(SUPPORT_SORTS, { message: `must be one of ${SUPPORT_SORTS.join(', ')}` }).default('lastActivityAt'),
  sortOrder: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).default('desc'),
});

export const CUSTOMER_TYPES = ['person', 'email', 'visitor'] as const;
export const customerDetailQuery = z.object({
  type: z.enum(CUSTOMER_TYPES, { message: `must be one of ${CUSTOMER_TYPES.join(', ')}` }),
  value: z.string().trim().min(1, 'is required').max(320, 'must be at most 320 characters'),
});

export const supportFlowBody = z.object({
  name: requiredText(200).optional(),
  categories: z.array(category).min(1, 'at least one category').max(50, 'at most 50 categories').optional(),
  mailboxAccountIds: z
    .array(ref('email-account', objectId))
    .max(20, 'at most 20 mailboxes')
    .optional()
    .describe('e-mail accounts whose received mail opens tickets'),
});

/** What the service writes: the parsed updateTicketBody (create bodies add their required fields). */
export type TicketInput = z.infer<typeof updateTicketBody>;

/** A ticket time entry as the service takes it: the parsed body. */
export type TicketTimeInput = z.infer<typeof ticketTimeBody>;

// ---- Views (response schemas) ----

export const supportStageView = z.object({
  id: z.number().int().describe('numeric stage id (POST /support-tickets/:id/move)'),
  title: z.string(),
  order: z.number().int(),
});

export const supportFlowView = z.object({
  ...recordViewFields,
  name: z.string(),
  stages: z.array(supportStageView).describe('kanban stages'),
  categories: z.array(z.string()).describe('allowed ticket categories; the first is the default'),
  mailboxAccountIds: z.array(idView).describe('e-mail accounts whose received mail opens tickets'),
  defaultCategory: z.string().describe('the first category (general when there is none)'),
});
export type SupportFlowView = z.infer<typeof supportFlowView>;

export const ticketCategoriesView = z.object({
  categories: z.array(z.string()),
  default: z.string().describe('the first category (general when there is none)'),
});

export const ticketView = z.object({
  ...recordViewFields,
  ticketNumber: z.number().int().describe('per workspace, from 1; shown as [#n] in e-mail subjects'),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(TICKET_STATUSES),
  priority: z.enum(TICKET_PRIORITIES),
  category: z.string(),
  assignee: idView.nullable().describe('user id'),
  company: idView.nullable(),
  personRef: idView.nullable(),
  customerEmail: z.string().nullable().describe('lower-cased'),
  customerName: z.string().nullable(),
  visitorId: z.string().nullable().describe('chat visitor id'),
  tags: z.array(z.string()),
  customFields: customFieldsView,
  resolution: z.string().nullable(),
  flowId: idView.describe('the support flow'),
  stageId: z.number().int().describe('kanban stage of the support flow'),
  source: z.enum(TICKET_SOURCES).describe('api (created through the API) or email (opened by received mail)'),
  unreadCount: z.number().int().describe('customer messages since the last public answer of an agent'),
  lastActivityAt: dateTimeView,
  firstResponseAt: dateTimeView.nullable(),
  resolvedAt: dateTimeView.nullable(),
  closedAt: dateTimeView.nullable(),
});
export type TicketView = z.infer<typeof ticketView>;

/** A create preview: the ticket number is only taken on save. */
export const ticketPreviewView = ticketView.extend({
  ticketNumber: z.number().int().nullable().describe('null in a create preview (taken on save)'),
});
export type TicketPreviewView = z.infer<typeof ticketPreviewView>;

export const ticketMessageView = z.object({
  _id: idView,
  createdAt: dateTimeView,
  ticketId: idView,
  type: z.enum(MESSAGE_TYPES).describe('reply or note (agent), email (received from the customer)'),
  visibility: z.enum(MESSAGE_VISIBILITIES),
  direction: z.enum(MESSAGE_DIRECTIONS),
  content: z.string(),
  authorUserId: idView.nullable().describe('the agent (null for customer e-mails)'),
  fromAddress: z.string().nullable().describe('sender of a received e-mail'),
  emailId: idView.nullable().describe('the e-mail row (sent reply or received message)'),
  messageId: z.string().nullable().describe('Message-ID header (threading)'),
});
export type TicketMessageView = z.infer<typeof ticketMessageView>;

export const ticketReplyView = ticketMessageView.extend({
  emailed: z.boolean().describe('true when the reply went out by e-mail'),
  email: z
    .object({ emailId: idView, messageId: z.string(), to: z.string() })
    .nullable()
    .describe('the e-mail sent (null for internal notes and tickets without a customer address)'),
  ticket: ticketView.describe('the ticket after the reply'),
});
export type TicketReplyView = z.infer<typeof ticketReplyView>;

export const ticketTimeEntryView = z.object({
  ...recordViewFields,
  ticketId: idView,
  ...timeEntryViewFields,
});
export type TicketTimeEntryView = z.infer<typeof ticketTimeEntryView>;

export const supportCustomerView = z.object({
  type: z.enum(CUSTOMER_TYPES),
  value: z.string().describe('person id, e-mail address or visitor id (by type)'),
  personId: idView.nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  visitorId: z.string().nullable(),
  totalTickets: z.number().int(),
  openTickets: z.number().int().describe('open, pending or on_hold'),
  unread: z.number().int(),
  lastActivityAt: dateTimeView.nullable(),
});
export type SupportCustomerView = z.infer<typeof supportCustomerView>;

export const supportCustomerDetailView = supportCustomerView.extend({
  person: z
    .object({
      _id: idView,
      firstName: z.string(),
      lastName: z.string().nullable(),
      emails: z.array(z.object({ email: z.string(), label: z.string().nullable().optional() })),
      companyId: idView.nullable(),
    })
    .nullable(),
  tickets: z.array(ticketView).describe('newest first, at most 100'),
});
export type SupportCustomerDetailView = z.infer<typeof supportCustomerDetailView>;
