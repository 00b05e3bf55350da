import type { EntityData, EntityName, FilterQuery, RequiredEntityData } from '@mikro-orm/core';
import type { Ctx } from '../context';
import { newId } from '../ids';

/**
 * Creates (and persists on next flush) a tenant record in the caller's workspace. Id and
 * timestamps are set now, not at flush, so events and feed rows written in the same flush can
 * reference the record.
 */
export function createRecord<T extends object>(
  ctx: Ctx,
  entity: EntityName<T>,
  data: Omit<RequiredEntityData<T>, '_id' | 'workspaceId' | 'createdAt' | 'updatedAt'> & Record<string, unknown>,
  opts: { id?: string } = {},
): T {
  const now = new Date();
  return ctx.em.create(entity, {
    ...data,
    _id: opts.id ?? newId(now),
    workspaceId: ctx.actor.workspaceId,
    createdAt: now,
    updatedAt: now,
  } as unknown as RequiredEntityData<T>);
}

/** The given (not undefined) values of `keys`: what a partial update sets. */
export function pickDefined<T extends object>(
  input: Partial<Record<string, unknown>>,
  keys: readonly string[],
): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (input[key] !== undefined) out[key] = input[key];
  return out as Partial<T>;
}

/** One default per workspace: `keepId` is the default now, so every other record of `entity` stops being one. */
export async function clearOtherDefaults<T extends { isDefault: boolean; updatedAt: Date }>(
  ctx: Ctx,
  entity: EntityName<T>,
  keepId: string,
): Promise<void> {
  await ctx.em.nativeUpdate(
    entity,
    { isDefault: true, _id: { $ne: keepId } } as unknown as FilterQuery<T>,
    { isDefault: false, updatedAt: new Date() } as unknown as EntityData<T>,
  );
}
