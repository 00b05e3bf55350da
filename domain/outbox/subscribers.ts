import { leadContactSyncSubscriber, leadRescoreSubscriber } from '../leads/rescore';
import { automationSubscribers } from '../automations/engine/subscribers';
import type { Subscriber, SubscriberDeps } from './subscriber';
import { createWebhookSubscriber } from '../webhooks/subscriber';
import { sequenceAutoEnrollSubscriber } from '../sequences/auto-enroll';
import { sequenceExitSubscriber } from '../sequences/exit-subscriber';
import { bookingNotificationSubscriber } from '../bookings/notifications';
import { envelopeWakeSubscriber } from '../contracts/envelope-wake';
import { supportInboundSubscriber } from '../support/support-inbound';

export type { OutboxEventRecord, Subscriber, SubscriberDeps } from './subscriber';

/**
 * Subscribers that need a port from outside domain/ (Temporal, Meilisearch), by the name a caller
 * uses to leave them out. A missing port is an error, never a silently unregistered subscriber.
 */
export const PORTED_SUBSCRIBERS = {
  automations: {
    dependency: 'workflows',
    subscribers: ['automations', 'automation-schedules', 'contract-envelope-wake'],
  },
  'search-index': { dependency: 'searchIndex', subscribers: ['search-index'] },
  webhooks: { dependency: 'webhookRetries', subscribers: ['webhooks'] },
  sequences: { dependency: 'sequenceWorkflows', subscribers: ['sequence-exits', 'sequence-auto-enroll'] },
} as const satisfies Record<string, { dependency: keyof SubscriberDeps; subscribers: readonly string[] }>;
export type PortedSubscriber = keyof typeof PORTED_SUBSCRIBERS;

export interface BuildSubscribersOptions {
  /** Ported subscribers deliberately not run (tests and benches of other features); their ports must then be absent. */
  without?: readonly PortedSubscriber[];
}

/**
 * The port of `group`, or undefined when the caller left the group out; throws when it is missing or contradicts
 * `without`.
 */
type PortOf<G extends PortedSubscriber> = SubscriberDeps[(typeof PORTED_SUBSCRIBERS)[G]['dependency']];

function portOf<G extends PortedSubscriber>(deps: SubscriberDeps, group: G, opts: BuildSubscribersOptions): PortOf<G> {
  const { dependency, subscribers } = PORTED_SUBSCRIBERS[group];
  const port = deps[dependency] as PortOf<G>;
  const left = opts.without?.includes(group) ?? false;
  if (port && left)
    throw new Error(
      `outbox subscribers: ${dependency} is given but '${group}' is listed in without; do one or the other`,
    );
  if (!port && !left) {
    throw new Error(
      `outbox subscribers: missing dependency ${dependency} (needed by ${subscribers.join(', ')}); pass it, or list '${group}' in without to run without it`,
    );
  }
  return port;
}

/**
 * The one registry of outbox subscribers, used by the worker. Automations, sequence exit
 * conditions, search indexing and outbound webhooks register here; names must stay stable
 * because `outbox_event.delivered_to` records them. Every ported subscriber needs its port unless
 * it is named in `opts.without`, so a worker missing one refuses to start.
 */
export function buildSubscribers(deps: SubscriberDeps, opts: BuildSubscribersOptions = {}): Subscriber[] {
  const workflows = portOf(deps, 'automations', opts);
  const searchIndex = portOf(deps, 'search-index', opts);
  const webhookRetries = portOf(deps, 'webhooks', opts);
  const sequenceWorkflows = portOf(deps, 'sequences', opts);
  const automations = workflows
    ? automationSubscribers({ orm: deps.orm, log: deps.log.child({ component: 'automations' }), workflows })
    : [];
  // Needs the engine port like the automations (same group): signals envelope workflows from contract events.
  const envelopes = workflows ? [envelopeWakeSubscriber({ workflows })] : [];
  const search = searchIndex ? [searchIndex(deps)] : [];
  const webhooks = webhookRetries
    ? [createWebhookSubscriber({ ...deps, log: deps.log.child({ component: 'webhooks' }), retries: webhookRetries })]
    : [];
  const seq = sequenceWorkflows
    ? {
        orm: deps.orm,
        log: deps.log.child({ component: 'sequences' }),
        workflows: sequenceWorkflows,
        waitScale: deps.config.sequenceWaitScale,
        stepTimeoutMs: deps.config.sequenceStepTimeoutMs,
      }
    : null;
  const sequences = seq ? [sequenceExitSubscriber(seq), sequenceAutoEnrollSubscriber(seq)] : [];
  const bookings = [
    bookingNotificationSubscriber({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'bookings' }),
    }),
  ];
  return [
    leadRescoreSubscriber(deps),
    leadContactSyncSubscriber(deps),
    ...search,
    ...automations,
    ...webhooks,
    ...sequences,
    ...bookings,
    ...envelopes,
    supportInboundSubscriber(deps),
  ];
}
