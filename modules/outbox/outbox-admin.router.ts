import type { RouteFactory } from '../../platform/http/app-deps';
import { envelopes } from '../../platform/http/crud';
import { ok, paged, route } from '../../platform/http/registry';
import * as admin from '../../platform/outbox/admin.service';
import { listOutboxDeliveriesQuery, outboxDeliveryView } from '../../platform/outbox/admin.schemas';
import { idParams } from '../../platform/shared/schemas';

const access = { scopes: ['admin'], roles: ['owner', 'admin'] } as const;
const section = 'Outbox deliveries';
const resources = { id: 'outbox-delivery' };
/** The view without the workspace (the caller's own). */
const view = (row: Parameters<typeof admin.serializeDelivery>[0]) => {
  const { workspaceId: _ws, ...rest } = admin.serializeDelivery(row);
  return rest;
};

export const outboxAdminRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/admin/outbox/deliveries',
    section,
    access,
    query: listOutboxDeliveriesQuery,
    summary:
      "Side effects of this workspace's events that did not go through (e-mails of bookings, search indexing, automation starts, …), newest first; filter by subscriber and status (queued, failing, failed, dropped).",
    description:
      'A subscriber that fails on an event holds back only its own later deliveries of that record (queued behind it); every other subscriber goes on. Failing deliveries are retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure (about a day), then failed; a permanent refusal (an SMTP 5xx such as 550) fails at once. Delivered ones are not listed.',
    response: envelopes.list(outboxDeliveryView),
    handler: async ({ ctx, query }) => {
      const { items, total } = await admin.listDeliveries(ctx.em, ctx.actor.workspaceId, query);
      return paged(items.map(view), { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/admin/outbox/deliveries/:id',
    section,
    access,
    params: idParams,
    resources,
    summary: 'One parked delivery with its last error.',
    response: envelopes.data(outboxDeliveryView),
    handler: async ({ ctx, params }) => ok(view(await admin.getDelivery(ctx.em, ctx.actor.workspaceId, params.id))),
  }),
  route({
    method: 'POST',
    path: '/api/v1/admin/outbox/deliveries/:id/retry',
    section,
    access,
    params: idParams,
    resources,
    summary:
      'Attempt the delivery again at once (running dispatchers are woken), with a fresh retry schedule (status queued, attempts 0; lastError kept). 409 while it is being attempted.',
    response: envelopes.data(outboxDeliveryView),
    handler: async ({ ctx, params }) => ok(view(await admin.retryDelivery(ctx.em, ctx.actor.workspaceId, params.id))),
  }),
  route({
    method: 'POST',
    path: '/api/v1/admin/outbox/deliveries/:id/drop',
    section,
    access,
    params: idParams,
    resources,
    summary:
      "Never attempt the delivery again (status dropped; kept for the record); the subscriber's later deliveries of the same record go on. 409 while it is being attempted.",
    response: envelopes.data(outboxDeliveryView),
    handler: async ({ ctx, params }) => ok(view(await admin.dropDelivery(ctx.em, ctx.actor.workspaceId, params.id))),
  }),
];
