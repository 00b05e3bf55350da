import type { RouteFactory } from '../../platform/http/app-deps';
import * as deliveries from './deliveries.service';
import { eventTypesDoc } from './event-types';
import * as subs from './subscriptions.service';
import { envelopes } from '../../platform/http/crud';
import { acknowledged, created, ok, pageOf, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import {
  createSubscriptionBody,
  deliveryParams,
  listDeliveriesQuery,
  listSubscriptionsQuery,
  updateSubscriptionBody,
  webhookDeliveryView,
  webhookSubscriptionView,
} from './webhooks.schemas';

const access = { scopes: ['webhooks'] } as const;
const section = 'Webhooks';
const resources = { id: 'webhook-subscription' };
const delivery =
  'Standard Webhooks: headers webhook-id (msg_<deliveryId>, the same on every attempt), webhook-timestamp, webhook-signature (v1,<base64 HMAC-SHA256>; two, space-separated, during a secret rotation); body { type, timestamp, data }.';

export const webhooksRoutes: RouteFactory = ({ config }) => [
  route({
    method: 'GET',
    path: '/api/v1/webhooks/subscriptions',
    section,
    access,
    query: listSubscriptionsQuery,
    summary: 'Outbound webhook subscriptions of the workspace, newest first (secrets masked); filter by active.',
    response: envelopes.list(webhookSubscriptionView),
    handler: async ({ ctx, query }) => pageOf(await subs.listSubscriptions(ctx, config, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/webhooks/subscriptions',
    section,
    access,
    body: createSubscriptionBody,
    successStatus: 201,
    summary:
      'Subscribe a URL (https; http only for OUTBOUND_ALLOW_HOSTS) to event types ("*" for all). The answer carries the whole secret (whsec_…), the only time it is shown.',
    description: `${delivery} Retries: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10% jitter); 410 disables the subscription, as do ${config.webhooks.disableAfterFailedDeliveries} deliveries in a row that failed every attempt. Event types: ${eventTypesDoc()}; plus webhook.test (POST …/test only).`,
    response: envelopes.data(webhookSubscriptionView),
    handler: async ({ ctx, body }) => created(await subs.createSubscription(ctx, config, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/webhooks/subscriptions/:id',
    section,
    access,
    params: idParams,
    resources,
    summary:
      'One subscription; the secret is masked (whsec_**** + last 4); disabledReason says why the product disabled it.',
    response: envelopes.data(webhookSubscriptionView),
    handler: async ({ ctx, params }) =>
      ok(subs.serializeSubscription(await subs.getSubscription(ctx, params.id), config)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/webhooks/subscriptions/:id',
    section,
    access,
    params: idParams,
    body: updateSubscriptionBody,
    resources,
    summary:
      'Update url, events, name, active (partial). active: true re-enables a disabled subscription and clears its failure streak.',
    response: envelopes.data(webhookSubscriptionView),
    handler: async ({ ctx, params, body }) => ok(await subs.updateSubscription(ctx, config, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/webhooks/subscriptions/:id',
    section,
    access,
    params: idParams,
    resources,
    summary: 'Delete the subscription and its delivery log; pending retries stop.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await subs.deleteSubscription(ctx, params.id);
      return acknowledged();
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/webhooks/subscriptions/:id/rotate-secret',
    section,
    access,
    params: idParams,
    resources,
    summary:
      'New secret (shown once in the answer); the previous one keeps signing for 24 hours, so both signatures are sent until previousSecretExpiresAt.',
    response: envelopes.data(webhookSubscriptionView),
    handler: async ({ ctx, params }) => ok(await subs.rotateSecret(ctx, config, params.id)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/webhooks/subscriptions/:id/test',
    section,
    access,
    params: idParams,
    resources,
    summary:
      'Send a webhook.test event now (active or not) and answer with the delivery: status delivered or failed, lastStatusCode, lastDurationMs. Not retried.',
    response: envelopes.data(webhookDeliveryView),
    handler: async ({ ctx, params }) => ok(await deliveries.sendTestEvent(ctx, { config }, params.id)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/webhooks/subscriptions/:id/deliveries',
    section,
    access,
    params: idParams,
    query: listDeliveriesQuery,
    resources,
    summary:
      'Delivery log of a subscription, newest first: webhookId, eventType, status (pending, retrying, delivered, failed), attempts, lastStatusCode, lastError, lastDurationMs, nextAttemptAt.',
    response: envelopes.list(webhookDeliveryView),
    handler: async ({ ctx, params, query }) => pageOf(await deliveries.listDeliveries(ctx, params.id, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/webhooks/deliveries/:id',
    section,
    access,
    params: idParams,
    resources: { id: 'webhook-delivery' },
    summary: 'One delivery.',
    response: envelopes.data(webhookDeliveryView),
    handler: async ({ ctx, params }) => ok(deliveries.serializeDelivery(await deliveries.getDelivery(ctx, params.id))),
  }),
  route({
    method: 'POST',
    path: '/api/v1/webhooks/subscriptions/:id/deliveries/:deliveryId/replay',
    section,
    access,
    params: deliveryParams,
    resources: { id: 'webhook-subscription', deliveryId: 'webhook-delivery' },
    summary:
      'Send a delivery again now with the same webhook-id and body; answers with the delivery. 409 while the subscription is disabled.',
    response: envelopes.data(webhookDeliveryView),
    handler: async ({ ctx, params }) =>
      ok(await deliveries.replayDelivery(ctx, { config }, params.id, params.deliveryId)),
  }),
];
