/**
 * The event catalog's building blocks: a feature declares its outbox events once, in
 * `domain/<feature>/<feature>.events.ts`, as `defineEvents({ name: payloadSchema, … })`; the
 * aggregate catalog (catalog.ts) spreads them and types `emit()` and `outboxRow()`.
 *
 * Payload schemas describe what the code emits (the call sites); nested records are open
 * (`recordView`: an `_id` and the view's fields) because the views are declared by the features'
 * schemas. Top-level keys are listed; the automation engine's loop guard adds `causedBy` to any
 * payload (OutboxPayloadStamp), which `z.object` accepts and strips when parsing.
 */
import { z } from 'zod';

/** Event name → the zod schema of its payload. */
export type EventCatalog = Readonly<Record<string, z.ZodType<Record<string, unknown>>>>;

/** A feature's events, kept literal (`as const` inferred) so their names form a union. */
export const defineEvents = <const C extends EventCatalog>(catalog: C): C => catalog;

/** A serialized record (a view): its `_id` and whatever fields the view has. */
export const recordView = z.looseObject({ _id: z.string() });
/** An object whose fields this catalog does not fix (a plain row, custom data, a rule). */
export const openObject = z.record(z.string(), z.unknown());
/** `applyPatch` changes: field → `{ from, to }`. */
export const fieldChanges = z.record(z.string(), z.looseObject({ from: z.unknown(), to: z.unknown() }));
/** The names of the fields that changed. */
export const changedKeys = z.array(z.string());
/** The records a message or booking is about (sequence exits and automations read them). */
export const recordLinks = z.object({
  personId: z.string().nullish(),
  companyId: z.string().nullish(),
  leadId: z.string().nullish(),
  dealId: z.string().nullish(),
});

/** The events of `recordEvents(name, …)`: `<name>_created`, `<name>_updated` and `<name>_deleted`. */
export type RecordEvents<N extends string, P extends z.ZodObject, C extends z.ZodType> = {
  readonly [K in `${N}_created` | `${N}_deleted`]: P;
} & { readonly [K in `${N}_updated`]: z.ZodObject<P['shape'] & { changes: C }> };

/**
 * The created/updated/deleted trio of a record, in that order: created and deleted carry `payload`, updated adds
 * `changes` (`fieldChanges`, applyPatch's, unless given, e.g. `changedKeys`). Spread it into `defineEvents`.
 */
export function recordEvents<const N extends string, P extends z.ZodObject, C extends z.ZodType = typeof fieldChanges>(
  name: N,
  payload: P,
  changes?: C,
): RecordEvents<N, P, C> {
  return {
    [`${name}_created`]: payload,
    [`${name}_updated`]: payload.extend({ changes: changes ?? fieldChanges }),
    [`${name}_deleted`]: payload,
  } as RecordEvents<N, P, C>;
}
