import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../config';
import type { Logger } from '../logger';
import { leadContactSyncSubscriber, leadRescoreSubscriber } from '../leads/rescore';
import { createSearchIndexSubscriber } from '../../search/index-subscriber';
import { automationSubscribers } from '../automations/engine/subscribers';
import type { WorkflowPort } from '../automations/engine/ports';
import { sequenceAutoEnrollSubscriber } from '../sequences/auto-enroll';
import { sequenceExitSubscriber } from '../sequences/exit-subscriber';
import type { SequenceWorkflowPort } from '../sequences/ports';
import type { Subscriber } from './subscriber';
import type { WebhookRetryPort } from '../webhooks/ports';
import { createWebhookSubscriber } from '../webhooks/subscriber';

export type { OutboxEventRecord, Subscriber } from './subscriber';

/**
 * What subscribers may use. Each subscriber forks its own EM per event (never `orm.em` itself).
 * Ports to other engines (workflow starter, search indexer, webhook sender) are added here by the
 * features that need them, so `domain/` stays free of Temporal imports.
 */
export interface SubscriberDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** The automation engine's workflow port; without it the automation subscribers are not registered. */
  workflows?: WorkflowPort;
  /** Retry workflows of outbound webhook deliveries; without it the `webhooks` subscriber is not registered. */
  webhookRetries?: WebhookRetryPort;
  /** The sequence engine's workflow port; without it the sequence subscribers are not registered. */
  sequenceWorkflows?: SequenceWorkflowPort;
}

/**
 * The one registry of outbox subscribers, used by the worker. Automations, sequence exit
 * conditions, search indexing and outbound webhooks register here; names must stay stable
 * because `outbox_event.delivered_to` records them.
 */
export function buildSubscribers(deps: SubscriberDeps): Subscriber[] {
  const automations = deps.workflows ? automationSubscribers({ orm: deps.orm, log: deps.log.child({ component: 'automations' }), workflows: deps.workflows }) : [];
  const webhooks = deps.webhookRetries ? [createWebhookSubscriber({ ...deps, log: deps.log.child({ component: 'webhooks' }), retries: deps.webhookRetries })] : [];
  const seq = deps.sequenceWorkflows ? { orm: deps.orm, log: deps.log.child({ component: 'sequences' }), workflows: deps.sequenceWorkflows, waitScale: deps.config.sequenceWaitScale, stepTimeoutMs: deps.config.sequenceStepTimeoutMs } : null;
  const sequences = seq ? [sequenceExitSubscriber(seq), sequenceAutoEnrollSubscriber(seq)] : [];
  return [leadRescoreSubscriber(deps), leadContactSyncSubscriber(deps), createSearchIndexSubscriber(deps), ...automations, ...webhooks, ...sequences];
}
