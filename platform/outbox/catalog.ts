/**
 * The event catalog's types: every outbox event the code emits, name → payload schema. Each feature declares its
 * events in `modules/<m>/<m>.events.ts` (`defineEvents`) and adds them to `EventCatalogOf` there by declaration
 * merging, so that platform imports no module while `emit()` and `outboxRow()` still accept only these names, each
 * with its payload type (a misspelt name fails tsc). The run-time catalog (`EVENT_CATALOG`, `isEventName`) is built
 * from the modules' `events` in app/event-catalog.ts; test/unit/outbox/event-catalog.test.ts checks that both hold
 * the same names, and the automation triggers, the webhook mapping and the sequence exits against them.
 * docs/events.md.
 */
import type { z } from 'zod';

/**
 * Every declared event: name → payload schema. Empty here; each `<m>.events.ts` extends it:
 *
 * ```ts
 * declare module '../../platform/outbox/catalog' {
 *   interface EventCatalogOf extends Readonly<typeof taskEvents> {}
 * }
 * ```
 *
 * Two features declaring one name with different payloads fail tsc here as well.
 */
export interface EventCatalogOf {}

/** A declared event name (`company_created`, …). */
export type EventName = keyof EventCatalogOf & string;
/** The payload an event of that name carries. */
export type EventPayload<N extends EventName> = z.infer<EventCatalogOf[N]>;
