import { leadContactSyncSubscriber, leadRescoreSubscriber } from '../leads/rescore';
import { automationSubscribers } from '../automations/engine/subscribers';
import type { Subscriber, SubscriberDeps } from './subscriber';
import { createWebhookSubscriber } from '../webhooks/subscriber';

export type { OutboxEventRecord, Subscriber, SubscriberDeps } from './subscriber';

/**
 * The one registry of outbox subscribers, used by the worker. Automations, sequence exit
 * conditions, search indexing and outbound webhooks register here; names must stay stable
 * because `outbox_event.delivered_to` records them.
 */
export function buildSubscribers(deps: SubscriberDeps): Subscriber[] {
  const automations = deps.workflows ? automationSubscribers({ orm: deps.orm, log: deps.log.child({ component: 'automations' }), workflows: deps.workflows }) : [];
  const search = deps.searchIndex ? [deps.searchIndex(deps)] : [];
  const webhooks = deps.webhookRetries ? [createWebhookSubscriber({ ...deps, log: deps.log.child({ component: 'webhooks' }), retries: deps.webhookRetries })] : [];
  return [leadRescoreSubscriber(deps), leadContactSyncSubscriber(deps), ...search, ...automations, ...webhooks];
}
