/**
 * The event catalog (the modules' `events`, app/event-catalog.ts; its type, platform/outbox/catalog.ts)
 * against itself, against the modules' events files, and against every list that names outbox events:
 * automation triggers, the webhook mapping, sequence exits and sequence events, the search definitions.
 * Names are also checked by tsc (the lists use `satisfies` or eventNames); the type-level cases at the bottom fail
 * tsc if `emit()` ever accepts an undeclared name again, or if the type and the modules' catalogs differ.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { NON_EVENT_TRIGGERS, TRIGGER_TYPES, UNEMITTED_TRIGGERS } from '../../../modules/automations/definition.schemas';
import type { Ctx } from '../../../platform/context';
import {
  EVENT_CATALOG,
  EVENT_NAMES,
  FEATURE_EVENTS,
  isEventName,
  type ModuleEventName,
} from '../../../app/event-catalog';
import type { EventName } from '../../../platform/outbox/catalog';
import { emit, outboxRow } from '../../../platform/outbox/emit';
import { SEQUENCE_EVENTS } from '../../../modules/sequences/definition.schemas';
import { SEQUENCE_EXIT_EVENTS, UNEMITTED_EXIT_EVENTS } from '../../../modules/sequences/exit-subscriber';
import { sequenceEvents } from '../../../modules/sequences/sequences.events';
import { OUTBOX_TO_WEBHOOK, UNEMITTED_WEBHOOK_SOURCES } from '../../../modules/webhooks/event-types';
import { SEARCH_DEFINITIONS } from '../../../search/registry';

const undeclared = (names: readonly string[]): string[] => names.filter((n) => !isEventName(n));
const declared = (names: readonly string[]): string[] => names.filter((n) => isEventName(n));

describe('the event catalog', () => {
  it('declares every name once across features', () => {
    const owners = new Map<string, string[]>();
    for (const [feature, events] of Object.entries(FEATURE_EVENTS))
      for (const name of Object.keys(events)) owners.set(name, [...(owners.get(name) ?? []), feature]);
    const clashes = [...owners].filter(([, features]) => features.length > 1);
    expect(clashes).toEqual([]);
    expect(EVENT_NAMES).toHaveLength(owners.size);
  });

  it("holds every catalog a modules/*/*.events.ts file declares (each named by its module's `events`)", () => {
    const root = path.join(__dirname, '../../..');
    const files = readdirSync(path.join(root, 'modules'), { recursive: true })
      .map(String)
      .filter((f) => /^[a-z-]+\/[a-z-]+\.events\.ts$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(29);
    const named = new Set<unknown>(Object.values(FEATURE_EVENTS));
    const unnamed = files.flatMap((file) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      Object.entries(require(path.join(root, 'modules', file)) as Record<string, unknown>)
        .filter(([, catalog]) => !named.has(catalog))
        .map(([name]) => `modules/${file} ${name}`),
    );
    expect(unnamed).toEqual([]);
  });

  it('names events in snake_case, entity first', () => {
    expect(EVENT_NAMES.filter((n) => !/^[a-z]+(_[a-z]+)+$/.test(n))).toEqual([]);
  });

  it('gives each name a schema with required keys (an empty payload parses for none)', () => {
    const emptyParses = EVENT_NAMES.filter((name) => (EVENT_CATALOG[name] as z.ZodType).safeParse({}).success);
    expect(emptyParses).toEqual([]);
    expect(EVENT_CATALOG.company_created.safeParse({ company: { _id: 'c1', name: 'Acme' } }).success).toBe(true);
    expect(EVENT_CATALOG.company_created.safeParse({ person: { _id: 'p1' } }).success).toBe(false);
  });
});

describe('lists that name outbox events', () => {
  it('automation triggers: a declared event, or listed as not one event, or as emitted by nothing', () => {
    const nonEvent: readonly string[] = NON_EVENT_TRIGGERS;
    const unemitted: readonly string[] = UNEMITTED_TRIGGERS;
    const triggers: readonly string[] = TRIGGER_TYPES;
    expect(triggers.filter((t) => !isEventName(t) && !nonEvent.includes(t) && !unemitted.includes(t))).toEqual([]);
    // A name that became an event leaves the exception lists; the lists hold only triggers.
    expect(declared([...nonEvent, ...unemitted])).toEqual([]);
    expect([...nonEvent, ...unemitted].filter((t) => !triggers.includes(t))).toEqual([]);
  });

  it('webhook mapping: every mapped outbox name is declared, except those emitted by nothing', () => {
    const unemitted: readonly string[] = UNEMITTED_WEBHOOK_SOURCES;
    const mapped = Object.keys(OUTBOX_TO_WEBHOOK);
    expect(undeclared(mapped).sort()).toEqual([...unemitted].sort());
  });

  it('sequence exits: every subscribed name is declared, except those emitted by nothing', () => {
    const unemitted: readonly string[] = UNEMITTED_EXIT_EVENTS;
    expect(undeclared(SEQUENCE_EXIT_EVENTS).sort()).toEqual([...unemitted].sort());
  });

  it('sequence triggers offer exactly the declared sequence events', () => {
    expect([...SEQUENCE_EVENTS].sort()).toEqual(Object.keys(sequenceEvents).sort());
  });

  it('search definitions re-sync on declared events only', () => {
    const named = SEARCH_DEFINITIONS.flatMap((d) => [
      ...(d.events ?? []),
      ...(d.parents ?? []).flatMap((p) => p.events),
      ...(d.references ?? []).flatMap((r) => r.events ?? []),
    ]);
    expect(undeclared(named)).toEqual([]);
  });
});

/**
 * Type-level cases: never called, checked by tsc (`npx tsc --noEmit -p .` covers test/). Each
 * `@ts-expect-error` fails the type check when its line stops being an error.
 */
export function typeLevelCases(ctx: Ctx): void {
  const at = new Date();
  // @ts-expect-error a misspelt event name
  emit(ctx, { type: 'compny_created', entityType: 'company', entityId: 'c1', payload: { company: { _id: 'c1' } } });
  // @ts-expect-error a declared name with another event's payload
  emit(ctx, { type: 'company_created', entityType: 'company', entityId: 'c1', payload: { person: { _id: 'p1' } } });
  // @ts-expect-error outboxRow refuses undeclared names as well
  outboxRow(ctx, at, 'emails_sent', 'email', 'e1', {});
  // @ts-expect-error a name built at run time is not a declared name
  emit(ctx, { type: `company_${String(at)}`, entityType: 'company', entityId: 'c1', payload: {} });
  // The type-level catalog (each events file extends EventCatalogOf) and the modules' `events` hold the same names: an
  // events file that does not extend it, or one that no module names, fails here.
  const sameNames: [EventName] extends [ModuleEventName]
    ? [ModuleEventName] extends [EventName]
      ? true
      : false
    : false = true;
  void sameNames;
  // The declared name with its payload compiles.
  emit(ctx, { type: 'company_created', entityType: 'company', entityId: 'c1', payload: { company: { _id: 'c1' } } });
}
