/**
 * The steps the CRM record services (companies, people, leads, deals, tasks, …) each took the same way: read one
 * record or 404, a list page in sync order, a preview that writes nothing, a delete with what refers to the record.
 */
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import { findRowById } from '../orm/lean-rows';
import { deleteWithEvent, type EventType, type PayloadFor, type RecordEvent } from './changes';
import { findPage, type DateFilterInput, type PageRequest } from './listing';
import { previewOf, type PreviewResult } from './preview';
import { inTransaction } from './tx';

/** GET :id: one prepared primary-key select, no query building or hydration (orm/lean-rows.ts), as its view. */
export async function readRecord<T extends object, V>(
  ctx: Ctx,
  entity: EntityName<T>,
  id: string,
  what: string,
  view: (row: T) => V,
): Promise<V> {
  const row = await findRowById(ctx, entity, id);
  if (!row) throw notFound(what);
  return view(row);
}

/** The record as a managed entity (to change or delete it); 404 naming `what` when the workspace has none. */
export async function getRecord<T extends object>(
  ctx: Ctx,
  entity: EntityName<T>,
  id: string,
  what: string,
): Promise<T> {
  const record = await ctx.em.findOne(entity, { _id: id } as FilterQuery<T>);
  if (!record) throw notFound(what);
  return record;
}

/**
 * One page of a list: newest first by `newestBy`, except that incremental sync (`updatedSince`) reads the oldest
 * change first, so a client can resume from the last updatedAt it saw.
 */
export async function findSyncPage<T extends object>(
  ctx: Ctx,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  query: PageRequest & DateFilterInput,
  newestBy = 'createdAt',
): Promise<{ items: T[]; total: number }> {
  const order: Record<string, 'asc' | 'desc'> = query.updatedSince ? { updatedAt: 'asc' } : { [newestBy]: 'desc' };
  return findPage(ctx.em, entity, where, query, order);
}

/** A preview's answer: the unit of work is cleared first, so nothing the preview built or changed is written. */
export function previewAnswer(
  ctx: Ctx,
  current: Record<string, unknown> | null,
  proposed: Record<string, unknown>,
): PreviewResult {
  ctx.em.clear();
  return previewOf(current, proposed);
}

/**
 * Deletes a record that others refer to, in one transaction: `detach` first removes or clears what refers to it,
 * then the record goes with its event (deleteWithEvent).
 */
export async function deleteWithDetach<N extends EventType>(
  ctx: Ctx,
  target: { _id: string },
  event: RecordEvent<N, PayloadFor<N>>,
  detach: () => Promise<unknown>,
): Promise<void> {
  await inTransaction(ctx, async () => {
    await detach();
    await deleteWithEvent(ctx, target, event, { flush: false });
  });
}

/** A record kind `K` whose delete event `K_deleted` the catalog declares. */
export type DeletableKind = { [N in EventType]: N extends `${infer K}_deleted` ? K : never }[EventType];

/**
 * DELETE :id of a record nothing else refers to: `load` (its 404), then the delete tail (`deleteWithEvent`) with
 * `<kind>_deleted` and `payload` of the record as it was.
 */
export function deleteById<T extends { _id: string }, K extends DeletableKind>(
  load: (ctx: Ctx, id: string) => Promise<T>,
  kind: K,
  payload: (record: T) => PayloadFor<`${K}_deleted` & EventType>,
): (ctx: Ctx, id: string) => Promise<void> {
  return async (ctx, id) => {
    const record = await load(ctx, id);
    const type = `${kind}_deleted` as `${K}_deleted` & EventType;
    await deleteWithEvent(ctx, record, { type, entityType: kind, payload: payload(record) });
  };
}
