import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { createdEvent, emitCreate, updateWithEvent } from '../../platform/shared/changes';
import { deleteWithDetach } from '../../platform/shared/record-service';
import { findPage, likePattern, toPlain, type PageRequest } from '../../platform/shared/listing';
import { createRecord } from '../../platform/shared/records';
import { loadRecords, recordKind, tableOf } from '../../platform/shared/record-kinds';
import { inTransaction } from '../../platform/shared/tx';
import { List, ListItem, type ListEntityType } from './list.entity';
import type { ListInput, ListItemView, ListView } from './lists.schemas';
import { plainOf } from '../../platform/shared/views';
import { getRecord } from '../../platform/shared/record-service';

const LIST_FIELDS = ['_id', 'name', 'entityType', 'description', 'ownerId', 'createdAt', 'updatedAt'] as const;

async function itemCounts(ctx: Ctx, listIds: string[]): Promise<Map<string, number>> {
  if (!listIds.length) return new Map();
  const rows = await ctx.em
    .getConnection()
    .execute<{ list_id: string; count: string }[]>(
      `select list_id, count(*) as count from list_item where workspace_id = ? and list_id in (${listIds.map(() => '?').join(', ')}) group by list_id`,
      [ctx.actor.workspaceId, ...listIds],
    );
  return new Map(rows.map((r) => [r.list_id, Number(r.count)]));
}

const serializeList = (l: List, itemCount: number): ListView => ({ ...plainOf(l, LIST_FIELDS), itemCount });

export async function serializeLists(ctx: Ctx, lists: List[]): Promise<ListView[]> {
  const counts = await itemCounts(
    ctx,
    lists.map((l) => l._id),
  );
  return lists.map((l) => serializeList(l, counts.get(l._id) ?? 0));
}

export function getList(ctx: Ctx, id: string): Promise<List> {
  return getRecord(ctx, List, id, 'list');
}

export async function getListView(ctx: Ctx, id: string): Promise<ListView> {
  return (await serializeLists(ctx, [await getList(ctx, id)]))[0]!;
}

export async function listLists(ctx: Ctx, query: PageRequest & { entityType?: ListEntityType; q?: string }) {
  const where: Record<string, unknown> = {};
  if (query.entityType) where.entityType = query.entityType;
  if (query.q) where.name = { $ilike: likePattern(query.q) };
  const { items, total } = await findPage(ctx.em, List, where, query, { createdAt: 'desc' });
  return { items: await serializeLists(ctx, items), total };
}

export async function createList(
  ctx: Ctx,
  input: ListInput & { name: string; entityType: ListEntityType },
): Promise<ListView> {
  const list = createRecord(ctx, List, {
    name: input.name,
    entityType: input.entityType,
    description: input.description ?? null,
    ownerId: ctx.actor.userId,
  });
  await emitCreate(ctx, list, createdEvent('list', { list: toPlain(list, LIST_FIELDS) }));
  return serializeList(list, 0);
}

/** The entity type of a list is fixed: its items are records of that type. */
export async function updateList(ctx: Ctx, id: string, input: ListInput): Promise<ListView> {
  const list = await getList(ctx, id);
  if (input.entityType !== undefined && input.entityType !== list.entityType) {
    throw validation(`entityType: a list's entity type cannot be changed (it is ${list.entityType})`);
  }
  await updateWithEvent(
    ctx,
    list,
    { name: input.name, description: input.description },
    { type: 'list_updated', entityType: 'list', payload: (changes) => ({ list: toPlain(list, LIST_FIELDS), changes }) },
  );
  return getListView(ctx, id);
}

export async function deleteList(ctx: Ctx, id: string): Promise<void> {
  const list = await getList(ctx, id);
  await deleteWithDetach(
    ctx,
    list,
    { type: 'list_deleted', entityType: 'list', payload: { list: toPlain(list, LIST_FIELDS) } },
    () => ctx.em.nativeDelete(ListItem, { workspaceId: ctx.actor.workspaceId, listId: id }),
  );
}

/**
 * Items of a list, most recently added first, each with the record's summary. Items whose record
 * was deleted since are skipped (joined against the record table), so totals stay exact.
 */
export async function listItems(
  ctx: Ctx,
  id: string,
  page: PageRequest,
): Promise<{ items: ListItemView[]; total: number }> {
  const list = await getList(ctx, id);
  const kind = recordKind(list.entityType);
  const { table, column } = tableOf(ctx, kind);
  const from = `from list_item li join "${table}" e on e.${column('_id')} = li.entity_id and e.${column('workspaceId')} = li.workspace_id
    where li.workspace_id = ? and li.list_id = ?`;
  const params = [ctx.actor.workspaceId, id];
  const conn = ctx.em.getConnection();
  const [rows, counted] = await Promise.all([
    conn.execute<{ entity_id: string; added_at: Date; added_by: string | null }[]>(
      `select li.entity_id, li.added_at, li.added_by ${from} order by li.added_at desc, li.id desc limit ? offset ?`,
      [...params, page.limit, (page.page - 1) * page.limit],
    ),
    conn.execute<{ total: string }[]>(`select count(*) as total ${from}`, params),
  ]);
  const { records } = await loadRecords(
    ctx,
    kind,
    rows.map((r) => r.entity_id),
  );
  const byId = new Map(records.map((r) => [r._id, r]));
  const items = rows.map((r): ListItemView => ({
    entityId: r.entity_id,
    entityType: list.entityType,
    addedAt: new Date(r.added_at).toISOString(),
    addedBy: r.added_by,
    entity: { _id: r.entity_id, ...kind.summary(byId.get(r.entity_id)!) },
  }));
  return { items, total: Number(counted[0]?.total ?? 0) };
}

/**
 * Adds records to a list (also used by the add_to_list automation action). Every id must be a
 * record of the list's type in this workspace, else nothing is added; re-adding is a no-op.
 */
export async function addToList(
  ctx: Ctx,
  listId: string,
  entityIds: readonly string[],
): Promise<{ added: number; alreadyPresent: number }> {
  const list = await getList(ctx, listId);
  const ids = [...new Set(entityIds)];
  const { missing } = await loadRecords(ctx, recordKind(list.entityType), ids);
  if (missing.length)
    throw validation(
      `entityIds: no ${list.entityType} with id ${missing.join(', ')} (this list holds ${list.entityType} records)`,
      { missing },
    );
  const present = new Set(
    (await ctx.em.find(ListItem, { listId, entityId: { $in: ids } }, { fields: ['entityId'] })).map((i) => i.entityId),
  );
  const toAdd = ids.filter((id) => !present.has(id));
  await inTransaction(ctx, async () => {
    for (const entityId of toAdd) {
      const item = createRecord(ctx, ListItem, {
        listId,
        entityType: list.entityType,
        entityId,
        addedAt: new Date(),
        addedBy: ctx.actor.userId,
      });
      ctx.em.persist(item);
      emit(ctx, {
        type: 'list_item_added',
        entityType: list.entityType,
        entityId,
        payload: { listId, listName: list.name, entityType: list.entityType, entityId },
      });
    }
  });
  return { added: toAdd.length, alreadyPresent: ids.length - toAdd.length };
}

/**
 * Removes records from a list (also used by the remove_from_list action); ids not on the list are counted, not refused.
 */
export async function removeFromList(
  ctx: Ctx,
  listId: string,
  entityIds: readonly string[],
): Promise<{ removed: number; notPresent: number }> {
  const list = await getList(ctx, listId);
  const ids = [...new Set(entityIds)];
  const items = await ctx.em.find(ListItem, { listId, entityId: { $in: ids } });
  await inTransaction(ctx, async () => {
    for (const item of items) {
      ctx.em.remove(item);
      emit(ctx, {
        type: 'list_item_removed',
        entityType: list.entityType,
        entityId: item.entityId,
        payload: { listId, listName: list.name, entityType: list.entityType, entityId: item.entityId },
      });
    }
  });
  return { removed: items.length, notPresent: ids.length - items.length };
}
