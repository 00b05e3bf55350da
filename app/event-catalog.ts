/**
 * The run-time event catalog: each module's `events` (its `<m>.events.ts`), merged. platform/outbox/catalog.ts holds
 * the same catalog as a type (each events file extends `EventCatalogOf`), which is all the code that emits needs;
 * this is for what checks events against their schemas (the tests' outbox helpers, the catalog test). A composition
 * file: it reads MODULES, so nothing in platform/ or a module imports it.
 */
import type { z } from 'zod';
import type { EventCatalogOf, EventName } from '../platform/outbox/catalog';
import { MODULES } from './modules';

type DeclaredBy<M> = M extends { readonly events: infer E } ? Exclude<E, undefined> : never;
type KeysOf<T> = T extends unknown ? keyof T : never;
/** The names the modules' `events` declare (test/unit/outbox/event-catalog.test.ts: the same as `EventName`). */
export type ModuleEventName = KeysOf<DeclaredBy<(typeof MODULES)[number]>>;

/** Each module's event catalog under its name, in MODULES order (a name declared twice fails the catalog test). */
export const FEATURE_EVENTS: Readonly<Record<string, Readonly<Record<string, z.ZodType>>>> = Object.fromEntries(
  MODULES.flatMap((m) => (m.events ? [[m.name, m.events]] : [])),
);

/** Every declared event: name → payload schema (the module catalogs merged). */
export const EVENT_CATALOG = Object.assign({}, ...Object.values(FEATURE_EVENTS)) as EventCatalogOf;

export const EVENT_NAMES = Object.keys(EVENT_CATALOG).sort() as EventName[];

export const isEventName = (name: string): name is EventName => Object.hasOwn(EVENT_CATALOG, name);
