import type { Ctx } from '../context';
import type { EventName, EventPayload } from '../outbox/catalog';
import { emit } from '../outbox/emit';

export type Changes = Record<string, { from: unknown; to: unknown }>;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Applies `patch` keys that differ to `target` and returns what changed (for feed, events, preview). */
export function applyPatch<T extends object>(target: T, patch: Partial<T>): Changes {
  const changes: Changes = {};
  for (const [key, to] of Object.entries(patch) as [keyof T & string, unknown][]) {
    if (to === undefined) continue;
    const from = target[key];
    if (same(from, to)) continue;
    changes[key] = { from: from instanceof Date ? from.toISOString() : (from ?? null), to: to ?? null };
    (target as Record<string, unknown>)[key] = to;
  }
  return changes;
}

/** The event names `emit` accepts (the catalog's declared names). */
export type EventType = EventName;
/** The payload of event N, as the catalog declares it. */
export type PayloadFor<N extends EventType> = EventPayload<N>;

/** The event a record's update or delete writes; `entityId` defaults to the record's id. */
export interface RecordEvent<N extends EventType, P> {
  type: N;
  entityType: string;
  entityId?: string;
  payload: P;
}

/** flush: false inside inTransaction (its end flushes); `also` writes what goes with the event, before the flush. */
export interface WriteOptions {
  flush?: boolean;
  also?: (changes: Changes) => void | Promise<void>;
}

interface Tracked {
  _id: string;
  updatedAt: Date;
}

/**
 * The update tail after `applyPatch`: when anything changed, stamps updatedAt, emits the event (payload built from
 * the stamped record and the changes), runs `also`, flushes. Nothing changed writes nothing. Returns whether it wrote.
 */
export async function emitUpdate<N extends EventType>(
  ctx: Ctx,
  target: Tracked,
  changes: Changes,
  event: RecordEvent<N, (changes: Changes) => PayloadFor<N>>,
  opts: WriteOptions = {},
): Promise<boolean> {
  if (!Object.keys(changes).length) return false;
  target.updatedAt = new Date();
  const { payload, entityId = target._id, ...rest } = event;
  emit<N>(ctx, { ...rest, entityId, payload: payload(changes) });
  await opts.also?.(changes);
  if (opts.flush !== false) await ctx.em.flush();
  return true;
}

/**
 * The create tail after `createRecord`: emits the new record's event (`entityId` defaults to its id), runs `also`
 * (what goes with the event), then flushes unless told not to (inside inTransaction, whose end flushes).
 */
export async function emitCreate<N extends EventType>(
  ctx: Ctx,
  target: { _id: string },
  event: RecordEvent<N, PayloadFor<N>>,
  opts: Pick<WriteOptions, 'flush'> & { also?: () => void } = {},
): Promise<void> {
  const { entityId = target._id, ...rest } = event;
  emit<N>(ctx, { ...rest, entityId });
  opts.also?.();
  if (opts.flush !== false) await ctx.em.flush();
}

/** applyPatch, then the update tail (`emitUpdate`). Returns the changes, null when nothing changed. */
export async function updateWithEvent<T extends Tracked, N extends EventType>(
  ctx: Ctx,
  target: T,
  patch: Partial<T>,
  event: RecordEvent<N, (changes: Changes) => PayloadFor<N>>,
  opts: WriteOptions = {},
): Promise<Changes | null> {
  const changes = applyPatch(target, patch);
  return (await emitUpdate(ctx, target, changes, event, opts)) ? changes : null;
}

/** The delete tail: removes the record, emits the event (payload as the record was), flushes unless told not to. */
export async function deleteWithEvent<N extends EventType>(
  ctx: Ctx,
  target: { _id: string },
  event: RecordEvent<N, PayloadFor<N>>,
  opts: Pick<WriteOptions, 'flush'> = {},
): Promise<void> {
  ctx.em.remove(target);
  // The rest is the create tail: the event (entityId defaulting to the record's id), then the flush.
  await emitCreate<N>(ctx, target, event, opts);
}

interface Tagged {
  _id: string;
  tags: readonly string[];
}

/** emitCreate for a tagged record: a tag_added event per tag follows the created event, then `also`, the flush. */
export function emitTaggedCreate<N extends EventType>(
  ctx: Ctx,
  target: Tagged,
  event: RecordEvent<N, PayloadFor<N>>,
  opts: Pick<WriteOptions, 'flush'> & { also?: () => void } = {},
): Promise<void> {
  return emitCreate(ctx, target, event, {
    ...opts,
    also: () => {
      emitTagChanges(ctx, event.entityType, target._id, [], target.tags);
      opts.also?.();
    },
  });
}

/**
 * emitUpdate for a tagged record: when anything changed, the tag_added / tag_removed events against `beforeTags`
 * follow the updated event, then `also`, the flush.
 */
export function emitTaggedUpdate<N extends EventType>(
  ctx: Ctx,
  target: Tagged & Tracked,
  changes: Changes,
  beforeTags: readonly string[],
  event: RecordEvent<N, (changes: Changes) => PayloadFor<N>>,
  opts: WriteOptions = {},
): Promise<boolean> {
  return emitUpdate(ctx, target, changes, event, {
    ...opts,
    also: async (c) => {
      emitTagChanges(ctx, event.entityType, target._id, beforeTags, target.tags);
      await opts.also?.(c);
    },
  });
}

/** tag_added / tag_removed events for each tag that appeared or disappeared. */
export function emitTagChanges(
  ctx: Ctx,
  entityType: string,
  entityId: string,
  before: readonly string[],
  after: readonly string[],
): void {
  for (const tag of after.filter((t) => !before.includes(t))) {
    emit(ctx, { type: 'tag_added', entityType, entityId, payload: { entityType, entityId, tag } });
  }
  for (const tag of before.filter((t) => !after.includes(t))) {
    emit(ctx, { type: 'tag_removed', entityType, entityId, payload: { entityType, entityId, tag } });
  }
}

/** Tags are trimmed, de-duplicated and kept in the order given. */
export function normalizeTags(tags: readonly string[] | undefined): string[] | undefined {
  if (!tags) return undefined;
  return [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
}

/** The record kinds `K` whose event `<K>_<action>` the catalog declares. */
export type KindWith<A extends string> = { [N in EventType]: N extends `${infer K}_${A}` ? K : never }[EventType];

/** `<kind>_created` of a record whose entity type is its kind, for emitCreate. */
export function createdEvent<K extends KindWith<'created'>>(
  kind: K,
  payload: PayloadFor<`${K}_created` & EventType>,
): RecordEvent<`${K}_created` & EventType, PayloadFor<`${K}_created` & EventType>> {
  return { type: `${kind}_created` as `${K}_created` & EventType, entityType: kind, payload };
}

/** `<kind>_updated` of a record whose entity type is its kind, its payload built from the changes: updateWithEvent. */
export function updatedEvent<K extends KindWith<'updated'>>(
  kind: K,
  payload: (changes: Changes) => PayloadFor<`${K}_updated` & EventType>,
): RecordEvent<`${K}_updated` & EventType, (changes: Changes) => PayloadFor<`${K}_updated` & EventType>> {
  return { type: `${kind}_updated` as `${K}_updated` & EventType, entityType: kind, payload };
}
