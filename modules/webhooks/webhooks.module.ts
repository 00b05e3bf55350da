/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as webhooksRouter from './webhooks.router';
import type * as webhooksActivities from './webhooks.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import { portedSubscriberGroup } from '../../platform/outbox/subscriber-groups';
import { webhookDeliveryKind } from './webhook-delivery.kind';
import { webhookEnv } from './settings';
import { createWebhookSubscriber } from './subscriber';
import { webhookSubscriptionResource } from './webhooks.resource';
import type { WebhookRetryPort } from './ports';

// Declaration merging: platform names no module.
declare module '../../platform/outbox/subscriber' {
  interface SubscriberDeps {
    /** Retry workflows of outbound webhook deliveries (the `webhooks` subscriber; required unless left out by name). */
    webhookRetries?: WebhookRetryPort;
  }
}

/** Outbound webhooks: subscriptions, deliveries (first attempt by the subscriber, retries as workflows). */
export const webhooksModule = defineModule({
  name: 'webhooks',
  resources: [webhookSubscriptionResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./webhooks.router') as typeof webhooksRouter).webhooksRoutes],
  workflows: [webhookDeliveryKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('./webhooks.activities') as typeof webhooksActivities).createWebhookActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'webhooks' }),
    }),
  subscribers: [
    portedSubscriberGroup('webhooks', 'webhookRetries', ['webhooks'], (deps, retries) => [
      createWebhookSubscriber({ ...deps, log: deps.log.child({ component: 'webhooks' }), retries }),
    ]),
  ],
  settings: { section: 'webhooks', load: webhookEnv },
});
