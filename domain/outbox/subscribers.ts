import { leadContactSyncSubscriber, leadRescoreSubscriber } from '../leads/rescore';
import { automationSubscribers } from '../automations/engine/subscribers';
import type { Subscriber, SubscriberDeps } from './subscriber';
import { createWebhookSubscriber } from '../webhooks/subscriber';
import { sequenceAutoEnrollSubscriber } from '../sequences/auto-enroll';
import { sequenceExitSubscriber } from '../sequences/exit-subscriber';
import { bookingNotificationSubscriber } from '../bookings/notifications';
import { supportInboundSubscriber } from '../support/support-inbound';

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
  const seq = deps.sequenceWorkflows ? { orm: deps.orm, log: deps.log.child({ component: 'sequences' }), workflows: deps.sequenceWorkflows, waitScale: deps.config.sequenceWaitScale, stepTimeoutMs: deps.config.sequenceStepTimeoutMs } : null;
  const sequences = seq ? [sequenceExitSubscriber(seq), sequenceAutoEnrollSubscriber(seq)] : [];
  const bookings = [bookingNotificationSubscriber({ orm: deps.orm, config: deps.config, log: deps.log.child({ component: 'bookings' }) })];
  return [leadRescoreSubscriber(deps), leadContactSyncSubscriber(deps), ...search, ...automations, ...webhooks, ...sequences, ...bookings, supportInboundSubscriber(deps)];
}
