import { defineResource, loadById } from '../../platform/shared/resource';
import { WebhookDelivery, WebhookSubscription } from './webhook.entity';
export const webhookSubscriptionResource = defineResource<WebhookSubscription>({
  kind: 'webhook-subscription',
  collection: 'webhooks',
  getPath: '/api/v1/webhooks/subscriptions/:id',
  entity: WebhookSubscription,
  ownedEntities: [WebhookDelivery],
  load: loadById(WebhookSubscription, 'webhook subscription'),
});
