import type { RouteFactory } from '../../platform/http/app-deps';
import { validation } from '../../platform/errors';
import { sendBulkSms } from './sms-bulk.service';
import { receiveSmsWebhook, rotateWebhookSecret, webhookSecretStatus } from './sms-inbound.service';
import * as messages from './sms-messages.service';
import { cancelScheduled, getScheduled, listScheduled, scheduleSms, serializeScheduled } from './sms-scheduled.service';
import { sendSms } from './sms.service';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { created, ok, paged, pageOf, route } from '../../platform/http/registry';
import { envelopes, publicRoute } from '../../platform/http/crud';
import {
  scheduledSmsView,
  smsBulkResultView,
  smsSummaryView,
  smsThreadMarkView,
  smsThreadRowView,
  smsThreadView,
  smsView,
  smsWebhookInfoView,
  smsWebhookResultView,
  smsWebhookSecretView,
} from './sms.views';
import { idParams } from '../../platform/shared/schemas';
import { z } from 'zod';
import {
  bulkSmsBody,
  listSmsQuery,
  scheduledQuery,
  scheduleSmsBody,
  sendSmsBody,
  smsFlagsBody,
  threadBody,
  threadParams,
  threadQuery,
  threadsQuery,
} from './sms.schemas';

const section = 'SMS';
const sms = { scopes: ['sms'] } as const;
const smsAdmin = { scopes: ['sms'], roles: ['owner', 'admin'] } as const;
const linksOf = (b: { personId?: string; companyId?: string; leadId?: string; dealId?: string }) => ({
  personId: b.personId,
  companyId: b.companyId,
  leadId: b.leadId,
  dealId: b.dealId,
});

// Literal paths come before /sms/:id (the router takes the first match).
export const smsRoutes: RouteFactory = (deps) => {
  const gateway = deps.messaging.gateway;
  const scheduler = deps.smsScheduler;
  const log = deps.log.child({ component: 'sms' });
  const threadsRoute = (path: string) =>
    route({
      method: 'GET',
      path,
      section,
      access: sms,
      query: threadsQuery,
      summary:
        'One row per counterparty number, most recent first: { phoneNumber, messageCount, unreadCount, lastMessageAt, lastMessage, contact } (contact resolved by the crm-connect phone rule: person, else company, else lead).',
      response: envelopes.list(smsThreadRowView),
      handler: async ({ ctx, query }) => pageOf(await messages.listThreads(ctx, query), query),
    });
  return [
    route({
      method: 'POST',
      path: '/api/v1/sms',
      section,
      access: sms,
      body: sendSmsBody,
      successStatus: 201,
      summary:
        'Send one SMS through the gateway. Without links it is linked to the contact the number resolves to. An idempotencyKey (or Idempotency-Key header) makes a retry answer the same SMS without sending again. 201 { data: sms }; 503 not_configured without a gateway; 502 when the gateway refuses (the SMS is kept with status failed).',
      response: envelopes.data(smsView),
      // 502: the gateway refused, or the outcome is unknown (never sent again automatically).
      errors: [502],
      handler: async ({ ctx, body, koa }) => {
        const key = body.idempotencyKey ?? (koa.get('idempotency-key') || undefined);
        const sent = await sendSms(
          ctx,
          {
            to: body.to,
            message: body.message,
            from: body.from,
            links: linksOf(body),
            idempotencyKey: key,
            source: 'api',
          },
          { gateway },
        );
        return created(messages.serializeSms(await messages.getSms(ctx, sent.smsId, { refresh: true })));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/sms',
      section,
      access: sms,
      query: listSmsQuery,
      summary:
        'Inbound and outbound SMS, newest first. Strict: unknown parameters are 400. Filters: direction, unread, starred, phoneNumber (crm-connect phone rule), personId, companyId, leadId, dealId, dateFrom/dateTo (createdAt), updatedSince; view=summary.',
      response: envelopes.list(z.union([smsView, smsSummaryView])),
      handler: async ({ ctx, query }) => {
        const { items, total } = await messages.listSms(ctx, query);
        return paged(
          items.map((m) => (query.view === 'summary' ? messages.serializeSmsSummary(m) : messages.serializeSms(m))),
          { page: query.page, limit: query.limit, total },
        );
      },
    }),
    threadsRoute('/api/v1/sms/conversations'),
    threadsRoute('/api/v1/sms/threads'),
    route({
      method: 'GET',
      path: '/api/v1/sms/threads/:phoneNumber',
      section,
      access: sms,
      params: threadParams,
      query: threadQuery,
      resources: { phoneNumber: 'sms-thread' },
      summary:
        'The messages with one number (crm-connect phone rule; newest first, paged) plus the resolved contact and unread count: { data: { phoneNumber, contact, unreadCount, messages }, page, limit, total }. 404 when there are none.',
      // The page meta (page, limit, total) counts data.messages.
      response: envelopes.list(smsThreadView).extend({ data: smsThreadView }),
      handler: async ({ ctx, params, query }) => {
        const { thread, total } = await messages.getThread(ctx, params.phoneNumber, query);
        return { status: 200, body: { data: thread, page: query.page, limit: query.limit, total } };
      },
    }),
    route({
      method: 'PUT',
      path: '/api/v1/sms/threads/:phoneNumber',
      section,
      access: sms,
      params: threadParams,
      body: threadBody,
      resources: { phoneNumber: 'sms-thread' },
      summary:
        '{ unread: false } marks every unread inbound message of the thread read; { unread: true } marks the latest inbound one unread. { data: { phoneNumber, updated, unreadCount } }.',
      response: envelopes.data(smsThreadMarkView),
      handler: async ({ ctx, params, body }) => ok(await messages.markThread(ctx, params.phoneNumber, body.unread)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/sms/bulk',
      section,
      access: sms,
      body: bulkSmsBody,
      successStatus: 201,
      summary:
        'Send to 1-500 recipients (strings or { to, message?, placeholders?, personId?, companyId?, leadId?, dealId? }); {{name}} placeholders are filled per recipient (a missing value fails that recipient). Each send is idempotent on idempotencyKey + position. 201 { data: { bulkId, summary: { total, sent, failed }, results: [{ index, to, status, smsId?, error? }] } }.',
      response: envelopes.data(smsBulkResultView),
      handler: async ({ ctx, body, koa }) => {
        const headerKey = koa.get('idempotency-key') || undefined;
        if (headerKey && !/^[\x21-\x7e]{1,120}$/.test(headerKey))
          throw validation('Idempotency-Key: must be 1-120 printable ASCII characters');
        const newCtx = () => ({ em: forkForWorkspace(deps.orm.em, ctx.actor.workspaceId), actor: ctx.actor });
        return created(
          await sendBulkSms(
            {
              message: body.message,
              from: body.from,
              recipients: body.recipients,
              bulkId: body.idempotencyKey ?? headerKey,
            },
            { gateway, newCtx },
          ),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/sms/schedule',
      section,
      access: sms,
      body: scheduleSmsBody,
      successStatus: 201,
      summary:
        'Schedule one SMS for sendAt (future, ≤ 365 days). Each is one Temporal workflow (sms-scheduled:<workspaceId>:<id>) with a durable timer; the send is idempotent per scheduled id. 201 { data: scheduled }.',
      response: envelopes.data(scheduledSmsView),
      // 502: the workflow engine did not take the schedule (the row is kept as failed).
      errors: [502],
      handler: async ({ ctx, body }) =>
        created(
          serializeScheduled(
            await scheduleSms(
              ctx,
              { to: body.to, message: body.message, from: body.from, sendAt: body.sendAt, links: linksOf(body) },
              { gateway, scheduler, log },
            ),
          ),
        ),
    }),
    route({
      method: 'GET',
      path: '/api/v1/sms/scheduled',
      section,
      access: sms,
      query: scheduledQuery,
      summary: 'Scheduled SMS, soonest first; filter by status (scheduled, sending, sent, failed, cancelled).',
      response: envelopes.list(scheduledSmsView),
      handler: async ({ ctx, query }) => {
        const { items, total } = await listScheduled(ctx, {
          page: query.page,
          limit: query.limit,
          status: query.status as never,
        });
        return paged(items.map(serializeScheduled), { page: query.page, limit: query.limit, total });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/sms/scheduled/:id',
      section,
      access: sms,
      params: idParams,
      resources: { id: 'sms-scheduled' },
      summary: 'One scheduled SMS (beyond the spec).',
      response: envelopes.data(scheduledSmsView),
      handler: async ({ ctx, params }) => ok(serializeScheduled(await getScheduled(ctx, params.id))),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/sms/scheduled/:id',
      section,
      access: sms,
      params: idParams,
      resources: { id: 'sms-scheduled' },
      summary:
        'Cancel a scheduled SMS: the row becomes cancelled and its workflow is cancelled in the same request; 409 once it is sending, sent, failed or cancelled. { data: scheduled }.',
      response: envelopes.data(scheduledSmsView),
      handler: async ({ ctx, params }) =>
        ok(serializeScheduled(await cancelScheduled(ctx, params.id, { scheduler, log }))),
    }),
    route({
      method: 'GET',
      path: '/api/v1/sms/webhook',
      section,
      access: smsAdmin,
      summary: 'The gateway webhook of this workspace (beyond the spec): { url, secretSet, secretHint }.',
      response: envelopes.data(smsWebhookInfoView),
      handler: async ({ ctx }) =>
        ok({
          url: `${deps.config.publicBaseUrl}/api/webhooks/sms/${ctx.actor.workspaceId}`,
          ...(await webhookSecretStatus(ctx)),
        }),
    }),
    route({
      method: 'POST',
      path: '/api/v1/sms/webhook-secret',
      section,
      access: smsAdmin,
      successStatus: 201,
      summary:
        'Create or replace the gateway webhook secret (beyond the spec); the secret is shown only in this answer: 201 { data: { url, secret } }. The gateway sends it as x-webhook-secret.',
      response: envelopes.data(smsWebhookSecretView),
      handler: async ({ ctx }) => {
        const { secret } = await rotateWebhookSecret(ctx);
        return created({ url: `${deps.config.publicBaseUrl}/api/webhooks/sms/${ctx.actor.workspaceId}`, secret });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/sms/:id',
      section,
      access: sms,
      params: idParams,
      resources: { id: 'sms' },
      summary: 'One SMS; a malformed or unknown id is 404.',
      response: envelopes.data(smsView),
      handler: async ({ ctx, params }) => ok(messages.serializeSms(await messages.getSms(ctx, params.id))),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/sms/:id',
      section,
      access: sms,
      params: idParams,
      body: smsFlagsBody,
      resources: { id: 'sms' },
      summary: 'Set the flags unread and/or starred (nothing else can change).',
      response: envelopes.data(smsView),
      handler: async ({ ctx, params, body }) =>
        ok(messages.serializeSms(await messages.updateSmsFlags(ctx, params.id, body))),
    }),
    publicRoute({
      method: 'POST',
      path: '/api/webhooks/sms/:workspaceId',
      section,
      params: z.object({ workspaceId: z.string() }),
      successStatus: 200,
      reason:
        "authenticated by the x-webhook-secret header (the workspace's SMS webhook secret, compared in constant time)",
      summary:
        'The SMS gateway\'s webhook. Inbound: { from, to?, message (alias body, text), id? } → stored (deduplicated on id), contact resolved by the crm-connect phone rule, events sms_received (+ sms_replied when we texted that number). Delivery report: { type: "delivery_report", id | reference, status, error? } → the outbound SMS status. 401 and nothing stored on a missing or wrong secret.',
      response: envelopes.data(smsWebhookResultView),
      // 401: a missing or wrong x-webhook-secret; 403: the workspace is not active (no API key, so not defaults).
      errors: [401, 403],
      handler: async ({ params, body, koa }) => {
        if (koa.request.rawBody && !koa.request.is('json'))
          throw validation('request body must be JSON (Content-Type: application/json)');
        return ok(
          await receiveSmsWebhook(deps.orm, {
            workspaceId: params.workspaceId,
            secret: koa.get('x-webhook-secret') || undefined,
            body,
          }),
        );
      },
    }),
  ];
};
