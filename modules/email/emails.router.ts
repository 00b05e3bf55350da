import { z } from 'zod';
import { pageParams } from '../../platform/shared/list-query';
import type { RouteFactory } from '../../platform/http/app-deps';
import { listEmailAccounts } from './email-accounts.service';
import { serializeEmail } from './email-records';
import * as emails from './emails.service';
import { created, ok, paged, pageOf, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { listEmailsQuery, rsvpBody, sendEmailBody, threadParams } from './emails.schemas';
import { getCalendarInvite, rsvpCalendarInvite } from './calendar-invite';
import {
  calendarInviteView,
  emailAccountView,
  emailSummaryView,
  emailThreadView,
  emailView,
  rsvpResultView,
  sentEmailView,
} from './email.views';
import { envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'E-mail';
const accessNote =
  'only e-mails of mailboxes the caller can use (GET /email-accounts); those sent by the fallback sender only to owners and admins';

export const emailsRoutes: RouteFactory = (deps) => [
  route({
    method: 'GET',
    path: '/api/v1/email-accounts',
    section,
    access: read,
    query: z.object(pageParams(100)),
    summary:
      'Connected mailboxes the caller can use (listed on the account, or shared). Credentials are never returned.',
    description: 'Accounts are connected by the operator CLI: `crm email-account add|test|remove`.',
    response: envelopes.list(emailAccountView),
    handler: async ({ ctx, query }) => {
      const items = await listEmailAccounts(ctx);
      const start = (query.page - 1) * query.limit;
      return paged(items.slice(start, start + query.limit), {
        page: query.page,
        limit: query.limit,
        total: items.length,
      });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/emails',
    section,
    access: read,
    query: listEmailsQuery,
    summary: `E-mails, newest first (${accessNote}). Strict list: unknown parameters answer 400.`,
    description: 'view=summary answers the summary of each e-mail.',
    response: envelopes.list(z.union([emailView, emailSummaryView])),
    handler: async ({ ctx, query }) => pageOf(await emails.listEmails(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/emails',
    section,
    access: write,
    body: sendEmailBody,
    successStatus: 201,
    summary:
      'Send one e-mail from a connected mailbox (accountId, to, subject, html and/or text); bodyHtml is refused (400).',
    description:
      'Links (linkPersonId, linkCompanyId, linkDealId) put it on those timelines; replyToMessageId (an e-mail id or Message-ID) threads it. An `Idempotency-Key` header (or idempotencyKey) sends at most once.',
    response: envelopes.data(sentEmailView),
    // 502: the mail server refused, or the outcome is unknown (never sent again automatically). 429: the mailbox's
    // maxPerHour / maxPerDay is reached (Retry-After: when the window ends).
    errors: [429, 502],
    handler: async ({ ctx, body, koa }) => {
      const idempotencyKey = body.idempotencyKey ?? (koa.get('idempotency-key') || undefined);
      return created(
        await emails.sendFromApi(
          ctx,
          { ...body, idempotencyKey },
          { transport: deps.messaging.transport, accounts: deps.messaging.accounts, tracking: deps.messaging.tracking },
        ),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/emails/threads/:threadId',
    section,
    access: read,
    params: threadParams,
    resources: { threadId: 'email' },
    summary: 'One conversation, oldest first (threaded by Message-ID, In-Reply-To and References).',
    response: envelopes.data(emailThreadView),
    handler: async ({ ctx, params }) => ok(await emails.getThread(ctx, params.threadId)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/emails/:id',
    section,
    access: read,
    params: idParams,
    resources: { id: 'email' },
    summary: `One e-mail (${accessNote}).`,
    response: envelopes.data(emailView),
    handler: async ({ ctx, params }) => ok(serializeEmail(await emails.getEmail(ctx, params.id))),
  }),
  route({
    method: 'GET',
    path: '/api/v1/emails/:id/calendar-invite',
    section,
    access: read,
    params: idParams,
    resources: { id: 'email' },
    summary:
      'The calendar invite (text/calendar part) of a received e-mail: uid, summary, start, end, organizer, attendees; 404 when it has none.',
    response: envelopes.data(calendarInviteView),
    handler: async ({ ctx, params }) => ok(await getCalendarInvite(ctx, params.id)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/emails/:id/calendar-invite',
    section,
    access: write,
    params: idParams,
    body: rsvpBody,
    resources: { id: 'email' },
    summary:
      'RSVP to a received invite: { response: accepted|declined|tentative, comment? } sends an iCalendar REPLY to the organizer from the receiving mailbox (once per response).',
    response: envelopes.data(rsvpResultView),
    errors: [502],
    handler: async ({ ctx, params, body }) =>
      ok(
        await rsvpCalendarInvite(ctx, params.id, body, {
          transport: deps.messaging.transport,
          accounts: deps.messaging.accounts,
          tracking: deps.messaging.tracking,
        }),
      ),
  }),
];
