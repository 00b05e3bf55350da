import type { Knex } from '@mikro-orm/knex';
import type { Ctx } from '../context';
import { validation } from '../errors';
import { dateWhere } from '../shared/listing';
import { RECORD_KINDS, type RecordType } from '../shared/record-kinds';
import { DEFAULT_EXPORT_ROWS, EXPORT_SPECS } from './export-specs';

export type FilterValue = string | number | boolean | null | (string | number)[];

export interface ExportRequest {
  limit?: number;
  page?: number;
  skip?: number;
  /** `_id` of the last row of the previous page. */
  cursor?: string;
  sortBy?: string;
  sortOrder?: 'asc' | 'desc';
  fields?: string[];
  dateFrom?: Date;
  dateTo?: Date;
  filters?: Record<string, FilterValue | undefined>;
}

export interface ExportPage {
  data: Record<string, unknown>[];
  total: number;
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
  page?: number;
  skip?: number;
}

interface Columns {
  table: string;
  col: (prop: string) => string;
  isDate: (prop: string) => boolean;
}

function columnsOf(ctx: Ctx, type: RecordType): Columns {
  const meta = ctx.em.getMetadata().get(RECORD_KINDS[type].entity.meta.className);
  return {
    table: meta.tableName,
    col: (prop) => meta.properties[prop]!.fieldNames[0]!,
    isDate: (prop) => meta.properties[prop]!.runtimeType === 'Date',
  };
}

/** Workspace, list scope, createdAt range and equality filters: everything but the cursor. */
function baseQuery(knex: Knex, ctx: Ctx, c: Columns, req: ExportRequest, listId?: string): Knex.QueryBuilder {
  const t = c.table;
  // Raw SQL bypasses the ORM tenant filter: the workspace condition is explicit and always first.
  const qb = knex(t).where(`${t}.workspace_id`, ctx.actor.workspaceId);
  if (listId) {
    qb.whereIn(
      `${t}.id`,
      knex('list_item').select('entity_id').where({ workspace_id: ctx.actor.workspaceId, list_id: listId }),
    );
  }
  const created = (dateWhere({ dateFrom: req.dateFrom, dateTo: req.dateTo }).createdAt ?? {}) as {
    $gte?: Date;
    $lte?: Date;
  };
  if (created.$gte) qb.where(`${t}.${c.col('createdAt')}`, '>=', created.$gte);
  if (created.$lte) qb.where(`${t}.${c.col('createdAt')}`, '<=', created.$lte);
  for (const [field, value] of Object.entries(req.filters ?? {})) {
    if (value === undefined) continue;
    const column = `${t}.${c.col(field)}`;
    if (field === 'tags')
      qb.whereRaw(`?? @> ?::text[]`, [column, Array.isArray(value) ? value.map(String) : [String(value)]]);
    else if (value === null) qb.whereNull(column);
    else if (Array.isArray(value)) qb.whereIn(column, value);
    else qb.where(column, value);
  }
  return qb;
}

/**
 * Keyset condition "after the cursor row" in (sortBy, _id) order; nulls sort last either way.
 * The cursor's sort value is read in a subquery so timestamps keep their full precision.
 */
async function applyCursor(
  knex: Knex,
  ctx: Ctx,
  qb: Knex.QueryBuilder,
  c: Columns,
  sortBy: string,
  dir: 'asc' | 'desc',
  cursor: string,
): Promise<void> {
  const t = c.table;
  const id = `${t}.id`;
  const cmp = dir === 'asc' ? '>' : '<';
  if (sortBy === '_id') {
    qb.where(id, cmp, cursor);
    return;
  }
  const column = `${t}.${c.col(sortBy)}`;
  const rows = await knex(t)
    .select(knex.raw(`?? is null as isnull`, [c.col(sortBy)]))
    .where({ workspace_id: ctx.actor.workspaceId, id: cursor });
  if (!rows.length)
    throw validation(`cursor: no record with id ${cursor} (it may have been deleted); start again without cursor`);
  if ((rows[0] as { isnull: boolean }).isnull) {
    qb.whereNull(column).andWhere(id, cmp, cursor);
    return;
  }
  const value = knex(t).select(c.col(sortBy)).where({ workspace_id: ctx.actor.workspaceId, id: cursor });
  qb.where((w) => {
    w.where(column, cmp, value)
      .orWhere((eq) => {
        eq.where(column, '=', value).andWhere(id, cmp, cursor);
      })
      .orWhereNull(column);
  });
}

/**
 * One page of an export as the JSON text of an ExportPage, read with a single SQL query that selects
 * only the requested columns as JSON rows (plus a count for `total`), without entities. Default
 * order: `_id` ascending (creation order). `nextCursor` continues after the last row in the same order.
 */
export async function exportRecords(
  ctx: Ctx,
  type: RecordType,
  req: ExportRequest,
  opts: { listId?: string } = {},
): Promise<string> {
  const spec = EXPORT_SPECS[type];
  const c = columnsOf(ctx, type);
  const knex = ctx.em.getKnex();
  const limit = req.limit ?? DEFAULT_EXPORT_ROWS;
  const sortBy = req.sortBy ?? '_id';
  const dir = req.sortOrder ?? 'asc';
  const fields = ['_id', ...(req.fields?.length ? req.fields : spec.fields).filter((f) => f !== '_id')];
  const offset = req.skip ?? ((req.page ?? 1) - 1) * limit;

  const rowsQuery = baseQuery(knex, ctx, c, req, opts.listId);
  if (req.cursor) await applyCursor(knex, ctx, rowsQuery, c, sortBy, dir, req.cursor);
  // Postgres writes each row as JSON text (keys in field order, dates as ISO strings): Node only
  // joins the rows, no per-field parsing, objects or JSON.stringify on the way out.
  const pairs = fields.map((f) => {
    const column = knex.raw('??', [`${c.table}.${c.col(f)}`]).toQuery();
    const value = c.isDate(f) ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : column;
    return `'${f.replace(/'/g, "''")}', ${value}`;
  });
  // json_build_object takes at most 100 arguments: 50 fields per object, merged in order when more.
  const objects: string[] = [];
  for (let i = 0; i < pairs.length; i += 50) objects.push(`json_build_object(${pairs.slice(i, i + 50).join(', ')})`);
  const row = objects.length === 1 ? objects[0]! : `(${objects.map((o) => `${o}::jsonb`).join(' || ')})::json`;
  rowsQuery.select(knex.raw(`${row}::text as j`), knex.raw('??::text as c', [`${c.table}.id`]));
  if (sortBy !== '_id') rowsQuery.orderByRaw(`?? ${dir} nulls last`, [`${c.table}.${c.col(sortBy)}`]);
  rowsQuery.orderBy(`${c.table}.id`, dir).limit(limit + 1);
  if (!req.cursor && offset) rowsQuery.offset(offset);
  const countQuery = baseQuery(knex, ctx, c, req, opts.listId).count({ total: '*' });

  const [rows, counted] = await Promise.all([
    rowsQuery as Promise<{ j: string; c: string }[]>,
    countQuery as unknown as Promise<{ total: string }[]>,
  ]);
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  const rest: Omit<ExportPage, 'data'> = {
    total: Number(counted[0]?.total ?? 0),
    limit,
    hasMore,
    nextCursor: hasMore ? rows[rows.length - 1]!.c : null,
    ...(req.cursor ? {} : req.skip !== undefined ? { skip: req.skip } : { page: req.page ?? 1 }),
  };
  let data = '[';
  for (let i = 0; i < rows.length; i++) data += (i ? ',' : '') + rows[i]!.j;
  return `{"data":${data}],${JSON.stringify(rest).slice(1)}`;
}
