import type { Subscriber, SubscriberDeps } from './subscriber';

/** The keys of SubscriberDeps that hold an optional port (workflows, searchIndex, webhookRetries, …). */
export type SubscriberPort = {
  [K in keyof SubscriberDeps]-?: undefined extends SubscriberDeps[K] ? K : never;
}[keyof SubscriberDeps];

/** Outbox subscribers a module registers (defineModule's `subscribers`); names stay stable (delivered_to). */
export interface SubscriberGroup<G extends string = string, K extends SubscriberPort = SubscriberPort> {
  readonly names: readonly string[];
  readonly port?: { readonly group: G; readonly dependency: K };
  build(deps: SubscriberDeps): Subscriber[];
}

/** Subscribers that need nothing beyond the ORM, config and log. */
export function subscriberGroup(
  names: readonly string[],
  build: (deps: SubscriberDeps) => Subscriber[],
): SubscriberGroup {
  return { names, build };
}

/**
 * Subscribers that need a port from outside domain/ (`deps[dependency]`); `group` is the name
 * `buildSubscribers(…, { without: [group] })` leaves them out by. buildSubscribers never builds them without it.
 */
export function portedSubscriberGroup<const G extends string, K extends SubscriberPort>(
  group: G,
  dependency: K,
  names: readonly string[],
  build: (deps: SubscriberDeps, port: NonNullable<SubscriberDeps[K]>) => Subscriber[],
): SubscriberGroup<G, K> & { readonly port: { readonly group: G; readonly dependency: K } } {
  return {
    names,
    port: { group, dependency },
    build(deps) {
      const port = deps[dependency];
      if (!port) throw new Error(`outbox subscribers ${names.join(', ')}: missing dependency ${dependency}`);
      return build(deps, port as NonNullable<SubscriberDeps[K]>);
    },
  };
}
