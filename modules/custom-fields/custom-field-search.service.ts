import type { Ctx } from '../../platform/context';
import type { PageRequest } from '../../platform/shared/listing';
import { loadRecords, recordKind, tableOf, type RecordType } from '../../platform/shared/record-kinds';
import { filterCondition, type SearchFilter } from './search-conditions';

export interface CustomFieldSearch extends PageRequest {
  entityType: RecordType;
  filters: SearchFilter[];
}

/** Records of one type whose custom field values match every filter, newest first. */
export async function searchByCustomFields(
  ctx: Ctx,
  input: CustomFieldSearch,
): Promise<{ items: Record<string, unknown>[]; total: number }> {
  const kind = recordKind(input.entityType);
  const { table, column } = tableOf(ctx, kind);
  const conditions = input.filters.map((f) =>
    filterCondition(kind.customFieldStorage, `e.${column('customFields')}`, f),
  );
  const from = `from "${table}" e where e.${column('workspaceId')} = ? ${conditions.map((c) => `and (${c.sql})`).join(' ')}`;
  const params = [ctx.actor.workspaceId, ...conditions.flatMap((c) => c.params)];
  const conn = ctx.em.getConnection();
  const [rows, counted] = await Promise.all([
    conn.execute<{ id: string }[]>(
      `select e.${column('_id')} as id ${from} order by e.${column('createdAt')} desc, e.${column('_id')} desc limit ? offset ?`,
      [...params, input.limit, (input.page - 1) * input.limit],
    ),
    conn.execute<{ total: string }[]>(`select count(*) as total ${from}`, params),
  ]);
  const { records } = await loadRecords(
    ctx,
    kind,
    rows.map((r) => r.id),
  );
  const byId = new Map(records.map((r) => [r._id, r]));
  const items = rows.flatMap((r) => {
    const record = byId.get(r.id);
    return record ? [kind.serialize(record)] : [];
  });
  return { items, total: Number(counted[0]?.total ?? 0) };
}
