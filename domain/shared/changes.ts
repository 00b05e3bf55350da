import type { Ctx } from '../context';
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
