import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowPort } from '../../../modules/automations/engine/ports';
import { loadConfig } from '../../../app/config';
import { createLogger } from '../../../platform/logger';
import { buildSubscribers, PORTED_SUBSCRIBERS, type PortedSubscriber } from '../../../app/subscribers';
import type { SubscriberDeps } from '../../../platform/outbox/subscriber';
import type { SequenceWorkflowPort } from '../../../modules/sequences/ports';
import type { WebhookRetryPort } from '../../../modules/webhooks/ports';

// Constructing subscribers touches none of their dependencies, so stand-ins are enough here.
const base = {
  orm: {} as MikroORM,
  config: loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1:1/db' }),
  log: createLogger('silent', 'subscribers-test'),
};
const ports = {
  workflows: {} as WorkflowPort,
  searchIndex: () => ({ name: 'search-index', handle: async () => undefined }),
  webhookRetries: {} as WebhookRetryPort,
  sequenceWorkflows: {} as SequenceWorkflowPort,
} satisfies Partial<SubscriberDeps>;
const ALL: SubscriberDeps = { ...base, ...ports };
const GROUPS = Object.keys(PORTED_SUBSCRIBERS) as PortedSubscriber[];
const names = (deps: SubscriberDeps, without?: PortedSubscriber[]) =>
  buildSubscribers(deps, { without }).map((s) => s.name);
/** The other groups that need the same port (automations and contract-envelopes both need `workflows`). */
const siblings = (group: PortedSubscriber): PortedSubscriber[] =>
  GROUPS.filter((g) => g !== group && PORTED_SUBSCRIBERS[g].dependency === PORTED_SUBSCRIBERS[group].dependency);
const namesOf = (groups: PortedSubscriber[]): string[] => groups.flatMap((g) => [...PORTED_SUBSCRIBERS[g].subscribers]);

describe('buildSubscribers', () => {
  it('registers every subscriber when every port is given, each name once', () => {
    const all = names(ALL);
    expect(new Set(all).size).toBe(all.length);
    for (const group of GROUPS) for (const name of PORTED_SUBSCRIBERS[group].subscribers) expect(all).toContain(name);
    expect(all).toEqual(expect.arrayContaining(['lead-rescore', 'lead-contact-sync', 'booking-notifications']));
  });

  it.each(GROUPS)('refuses to build without the port of %s, naming the missing dependency', (group) => {
    const { dependency } = PORTED_SUBSCRIBERS[group];
    const deps: SubscriberDeps = { ...ALL, [dependency]: undefined };
    const others = { without: siblings(group) };
    expect(() => buildSubscribers(deps, others)).toThrow(`missing dependency ${dependency}`);
    expect(() => buildSubscribers(deps, others)).toThrow(`list '${group}' in without`);
  });

  it.each(GROUPS)('leaves out %s only when it is named in without', (group) => {
    const { dependency, subscribers } = PORTED_SUBSCRIBERS[group];
    const without = names({ ...ALL, [dependency]: undefined }, [group, ...siblings(group)]);
    for (const name of subscribers) expect(without).not.toContain(name);
    const gone = [...subscribers, ...namesOf(siblings(group))];
    expect(without).toEqual(names(ALL).filter((name) => !gone.includes(name)));
  });

  it('refuses a port that is given and left out at once', () => {
    expect(() => buildSubscribers(ALL, { without: ['webhooks'] })).toThrow(
      "webhookRetries is given but 'webhooks' is listed in without",
    );
  });

  it('runs the port-free subscribers alone when every ported group is left out by name', () => {
    expect(names(base, GROUPS).sort()).toEqual([
      'booking-notifications',
      'lead-contact-sync',
      'lead-rescore',
      'support-inbound',
    ]);
  });
});
