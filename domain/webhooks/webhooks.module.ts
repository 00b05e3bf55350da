import { defineModule } from '../module';
import { webhooksRoutes } from '../../api/routes/webhooks.router';
import { createWebhookActivities } from '../../activities/webhooks.activities';
import type { ActivityDeps } from '../../activities/deps';
import { portedSubscriberGroup } from '../outbox/subscriber-groups';
import { webhookDeliveryKind } from '../workflow-kinds';
import { webhookEnv } from './settings';
import { createWebhookSubscriber } from './subscriber';
import { webhookSubscriptionResource } from './webhooks.resource';

/** Outbound webhooks: subscriptions, deliveries (first attempt by the subscriber, retries as workflows). */
export const webhooksModule = defineModule({
  name: 'webhooks',
  resources: [webhookSubscriptionResource],
  routes: [webhooksRoutes],
  workflows: [webhookDeliveryKind],
  activities: (deps: ActivityDeps) =>
    createWebhookActivities({ orm: deps.orm, config: deps.config, log: deps.log.child({ component: 'webhooks' }) }),
  subscribers: [
    portedSubscriberGroup('webhooks', 'webhookRetries', ['webhooks'], (deps, retries) => [
      createWebhookSubscriber({ ...deps, log: deps.log.child({ component: 'webhooks' }), retries }),
    ]),
  ],
  settings: { section: 'webhooks', load: webhookEnv },
});
