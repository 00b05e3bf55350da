import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as tickets from './tickets.service';
import { ensureSupportFlow, serializeSupportFlow, updateSupportFlow } from './support-flow.service';
import { listSupportCustomers, supportCustomerDetail } from './support-customers.service';
import { createTicketTimeEntry, listMessages, listTicketTimeEntries, replyToTicket } from './ticket-replies.service';
import { FALLBACK_CATEGORY, ticketStatusTransitions } from './support.rules';
import { validation } from '../../platform/errors';
import { created, ok, paged, pageOf, route } from '../../platform/http/registry';
import { crudRoutes, envelopes, viewOf } from '../../platform/http/crud';
import { idParams } from '../../platform/shared/schemas';
import {
  createTicketBody,
  customerDetailQuery,
  listTicketsQuery,
  messagesQuery,
  moveTicketBody,
  replyBody,
  supportCustomerDetailView,
  supportCustomersQuery,
  supportCustomerView,
  supportFlowBody,
  supportFlowView,
  ticketCategoriesView,
  ticketMessageView,
  ticketPreviewView,
  ticketReplyView,
  ticketTimeEntryView,
  ticketView,
  ticketTimeBody,
  ticketTimeQuery,
  updateTicketBody,
} from './support.schemas';
import { admin, read, write } from '../../platform/http/access';

const section = 'Support';
const resources = { id: 'support-ticket' };

const stageNumber = (v: number | string): number => {
  const n = typeof v === 'number' ? v : /^\d{1,9}$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n))
    throw validation('stageId: must be a support stage id (number)', [{ path: 'stageId', error: 'must be a number' }]);
  return n;
};

export const supportRoutes: RouteFactory = (deps) => [
  route({
    method: 'GET',
    path: '/api/v1/support-flow',
    section,
    access: read,
    summary:
      'The support flow: kanban stages (numeric ids), ticket categories and support mailboxes; created with defaults on first use.',
    response: envelopes.data(supportFlowView),
    handler: async ({ ctx }) => ok(serializeSupportFlow(await ensureSupportFlow(ctx))),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/support-flow',
    section,
    access: admin,
    body: supportFlowBody,
    summary:
      'Rename the flow, replace its categories (the first is the default) or the mailboxes (e-mail account ids) whose received mail opens tickets.',
    response: envelopes.data(supportFlowView),
    handler: async ({ ctx, body }) => ok(await updateSupportFlow(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/support-tickets/categories',
    section,
    access: read,
    summary: "Allowed category values (the support flow's categories; the first is the default).",
    response: envelopes.data(ticketCategoriesView),
    handler: async ({ ctx }) => {
      const flow = await ensureSupportFlow(ctx);
      return ok({ categories: flow.categories, default: flow.categories[0] ?? FALLBACK_CATEGORY });
    },
  }),
  ...crudRoutes({
    base: '/api/v1/support-tickets',
    section,
    kind: 'support-ticket',
    access: { read, write },
    schemas: {
      list: listTicketsQuery,
      create: createTicketBody,
      update: updateTicketBody,
      view: ticketView,
    },
    service: {
      list: tickets.listTickets,
      create: async (ctx, body, opts) => (await tickets.createTicket(ctx, body, opts)).view,
      get: viewOf(tickets.getTicket, tickets.serializeTicket),
      update: tickets.updateTicket,
      remove: tickets.deleteTicket,
    },
    previewable: true,
    routes: {
      create: {
        description:
          'The support flow is created first if it does not exist. The ticket starts `open` in the first stage with the next ticket number. Event support_ticket_created.',
        responses: { 200: envelopes.preview(ticketPreviewView) },
      },
      update: {
        description:
          'Status changes follow the table below (409 invalid_state otherwise); events support_ticket_updated plus _resolved, _closed, _reopened, _assigned as they apply.',
        transitions: [ticketStatusTransitions],
      },
    },
    summaries: {
      list: 'Support tickets, newest first; filters status, priority, assignee, category, search.',
      create:
        "Create a ticket (title required; category defaults to the flow's first category, else general); preview: true returns current, proposed and diff without saving.",
      get: 'Get one ticket.',
      update:
        'Update a ticket (partial): create fields plus status, resolution, customFields (merged); preview supported.',
      remove: 'Delete a ticket with its messages and time entries (the e-mails stay in the mailbox).',
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/support-tickets/:id/reply',
    section,
    access: write,
    params: idParams,
    body: replyBody,
    resources,
    successStatus: 201,
    transitions: [ticketStatusTransitions],
    summary:
      'Answer a ticket: content required; type reply (default) or note; visibility public (default for replies) or internal (notes).',
    description:
      "A public reply is e-mailed to the customer (ticket customerEmail) from the first support mailbox, else the fallback sender (503 not_configured when neither is set up; 502 upstream_failed when the mail server refuses it), threaded under the conversation's last message with `[#<ticketNumber>]` in the subject; the customer's answers continue the ticket. Internal notes are never e-mailed. Event support_ticket_replied.",
    response: envelopes.data(ticketReplyView),
    errors: [502],
    handler: async ({ ctx, params, body }) => {
      if (body.content === undefined) await tickets.getTicket(ctx, params.id);
      return created(
        await replyToTicket(
          ctx,
          params.id,
          { ...body, content: body.content ?? '' },
          { transport: deps.messaging.transport, accounts: deps.messaging.accounts, tracking: deps.messaging.tracking },
        ),
      );
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/support-tickets/:id/move',
    section,
    access: write,
    params: idParams,
    body: moveTicketBody,
    resources,
    summary:
      'Move a ticket to a kanban stage of the support flow (stageId number; unknown → 400); event support_ticket_stage_changed.',
    response: envelopes.data(ticketView),
    handler: async ({ ctx, params, body }) => {
      await tickets.getTicket(ctx, params.id);
      return ok(await tickets.moveTicket(ctx, params.id, stageNumber(body.stageId), body.flowId));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/support-tickets/:id/messages',
    section,
    access: read,
    params: idParams,
    query: messagesQuery,
    resources,
    summary:
      'The conversation, oldest first: customer e-mails, public replies and internal notes; `limit` default 50 (max 200), `visibility` public or internal.',
    response: envelopes.list(ticketMessageView),
    handler: async ({ ctx, params, query }) => pageOf(await listMessages(ctx, params.id, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/support-tickets/:id/time-entries',
    section,
    access: read,
    params: idParams,
    query: ticketTimeQuery,
    resources,
    summary: 'Time logged on the ticket (newest date first) with totalHours.',
    response: envelopes.list(ticketTimeEntryView).extend({
      totalHours: z.number().describe('hours of every entry of the ticket (not only this page)'),
    }),
    handler: async ({ ctx, params, query }) => {
      const { items, total, totalHours } = await listTicketTimeEntries(ctx, params.id, query);
      return paged(items, { page: query.page, limit: query.limit, total, totalHours });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/support-tickets/:id/time-entries',
    section,
    access: write,
    params: idParams,
    body: ticketTimeBody,
    resources,
    successStatus: 201,
    summary:
      'Log time on a ticket: hours > 0 (minutes added), description, date (default now), billable (default true).',
    response: envelopes.data(ticketTimeEntryView),
    handler: async ({ ctx, params, body }) => created(await createTicketTimeEntry(ctx, params.id, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/support-customers',
    section,
    access: read,
    query: supportCustomersQuery,
    summary:
      'Customers with tickets (one per person, else e-mail, else chat visitor): totalTickets, openTickets, unread, lastActivityAt.',
    description:
      '`search` (alias `q`) matches name, e-mail or visitor id; `sortBy` lastActivityAt (default), totalTickets, openTickets, unread; `sortOrder` desc (default) or asc.',
    response: envelopes.list(supportCustomerView),
    handler: async ({ ctx, query }) => pageOf(await listSupportCustomers(ctx, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/support-customers/detail',
    section,
    access: read,
    query: customerDetailQuery,
    summary:
      'One support customer: `type` person (value = person id), email (address) or visitor (chat visitor id); stats, person and tickets. 404 when unknown.',
    response: envelopes.data(supportCustomerDetailView),
    handler: async ({ ctx, query }) => ok(await supportCustomerDetail(ctx, query.type, query.value)),
  }),
];
