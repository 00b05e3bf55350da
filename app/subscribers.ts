import { MODULES } from './modules';
import type { SubscriberGroup } from '../platform/outbox/subscriber-groups';
import type { Subscriber, SubscriberDeps } from '../platform/outbox/subscriber';

export type { OutboxEventRecord, Subscriber, SubscriberDeps } from '../platform/outbox/subscriber';

type Groups = (typeof MODULES)[number]['subscribers'][number];
type Ported = Extract<Groups, { readonly port: unknown }>;
export type PortedSubscriber = Ported['port']['group'];

const GROUPS: readonly SubscriberGroup[] = MODULES.flatMap((m): readonly SubscriberGroup[] => m.subscribers);

/**
 * Subscribers that need a port from outside domain/ (Temporal, Meilisearch), by the name a caller
 * uses to leave them out (the modules' ported subscriber groups). A missing port is an error, never a silently
 * unregistered subscriber.
 */
export const PORTED_SUBSCRIBERS = Object.fromEntries(
  GROUPS.flatMap((g) => (g.port ? [[g.port.group, { dependency: g.port.dependency, subscribers: g.names }]] : [])),
) as {
  readonly [G in PortedSubscriber]: {
    readonly dependency: Extract<Ported, { port: { group: G } }>['port']['dependency'];
    readonly subscribers: readonly string[];
  };
};

export interface BuildSubscribersOptions {
  /** Ported subscribers deliberately not run (tests and benches of other features); their ports must then be absent. */
  without?: readonly PortedSubscriber[];
}

/** Whether the ported `group` runs; throws when its port is missing or contradicts `without`. */
function portGiven(
  deps: SubscriberDeps,
  port: NonNullable<SubscriberGroup['port']>,
  names: readonly string[],
  opts: BuildSubscribersOptions,
): boolean {
  const { group, dependency } = port;
  const given = Boolean(deps[dependency]);
  const left = (opts.without as readonly string[] | undefined)?.includes(group) ?? false;
  if (given && left)
    throw new Error(
      `outbox subscribers: ${dependency} is given but '${group}' is listed in without; do one or the other`,
    );
  if (!given && !left) {
    throw new Error(
      `outbox subscribers: missing dependency ${dependency} (needed by ${names.join(', ')}); pass it, or list '${group}' in without to run without it`,
    );
  }
  return given;
}

/**
 * The one registry of outbox subscribers, used by the worker: every module's `subscribers` (domain/modules.ts), in
 * MODULES order. Names must stay stable because `outbox_event.delivered_to` records them. Every ported subscriber
 * needs its port unless it is named in `opts.without`, so a worker missing one refuses to start.
 */
export function buildSubscribers(deps: SubscriberDeps, opts: BuildSubscribersOptions = {}): Subscriber[] {
  const running = GROUPS.filter((g) => !g.port || portGiven(deps, g.port, g.names, opts));
  return running.flatMap((g) => g.build(deps));
}
