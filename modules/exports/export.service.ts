import { Readable } from 'node:stream';
import type { Knex } from '@mikro-orm/knex';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { streamTextRows } from '../../platform/orm/lean';
import { dateWhere } from '../../platform/shared/listing';
import { recordKind, type RecordType } from '../../platform/shared/record-kinds';
import { DEFAULT_EXPORT_ROWS, exportSpecs } from './export-specs';

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
  /** Column type as the ORM declares it (`jsonb`, `double precision`, …). */
  type: (prop: string) => string;
}

function columnsOf(ctx: Ctx, type: RecordType): Columns {
  const meta = ctx.em.getMetadata().get(recordKind(type).entity.meta.className);
  return {
    table: meta.tableName,
    col: (prop) => meta.properties[prop]!.fieldNames[0]!,
    isDate: (prop) => meta.properties[prop]!.runtimeType === 'Date',
    type: (prop) => meta.properties[prop]!.columnTypes?.[0] ?? '',
  };
}

/** JSON number grammar (what Postgres' to_json checks before writing a number unquoted). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const NUMERIC = /^(double precision|real|float[48]?|int|integer|smallint|bigint|int[248]|numeric(\(.*\))?|decimal)$/;

/**
 * A timestamp as to_json(to_char(… 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) writes it. to_char is most of
 * Postgres' CPU of an export (~1 µs per value), so years 1-9999 come as the plain UTC timestamp text
 * (`YYYY-MM-DD HH:MI:SS[.ffffff]` when DateStyle is ISO, checked once per statement) and isoDate
 * rearranges it (milliseconds truncated, as to_char does); anything else (other years, infinity,
 * another DateStyle) still goes through to_char and arrives as JSON text.
 */
const dateSql = (column: string): string =>
  `case when ${column} between '0001-01-02' and '9999-12-30' and (select current_setting('DateStyle') like 'ISO%')
    then (${column} at time zone 'UTC')::text
    else to_json(to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text end`;

function isoDate(text: string): string {
  if (text.charCodeAt(0) === 34) return text; // already JSON (the to_char branch)
  const ms = text.length > 20 ? `${text.slice(20, 23)}00`.slice(0, 3) : '000';
  return `"${text.slice(0, 10)}T${text.slice(11, 19)}.${ms}Z"`;
}

/**
 * How one field is selected and written: text that is already what to_json would write (jsonb, booleans)
 * or needs only a check (numbers: `NaN`/`Infinity` are quoted) is selected as plain text, everything
 * else through to_json (strings, arrays; dates as ISO strings via to_char). to_json costs Postgres
 * more per value than the plain output, and these checks cost Node less.
 */
function valueOf(c: Columns, f: string, column: string): { sql: string; write?: (text: string) => string } {
  const type = c.type(f);
  if (c.isDate(f)) return { sql: dateSql(column), write: isoDate };
  if (type === 'jsonb' || type === 'json' || type === 'boolean') return { sql: `${column}::text` };
  if (NUMERIC.test(type)) return { sql: column, write: (t) => (JSON_NUMBER.test(t) ? t : JSON.stringify(t)) };
  // Strings: JSON.stringify escapes exactly what Postgres' escape_json does (", \\, control characters).
  if (/^(varchar(\(\d+\))?|text|character varying(\(\d+\))?)$/.test(type))
    return { sql: column, write: JSON.stringify };
  return { sql: `to_json(${column})` };
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

/** Text is handed to the response in pieces of about this size while rows arrive. */
const CHUNK_CHARS = 64 * 1024;

/**
 * One page of an export as a stream of the JSON text of an ExportPage, read with a single SQL query
 * that selects only the requested columns as JSON values (plus a count for `total`), without
 * entities. Rows go out while Postgres still sends the next ones; `total`, `hasMore` and
 * `nextCursor` follow the rows. Resolves once the first piece (or the whole page) is ready, so a
 * failing query still answers with an error status; a failure after that aborts the stream. Memory
 * is bounded by the page (at most MAX_EXPORT_ROWS rows). Default order: `_id` ascending (creation
 * order). `nextCursor` continues after the last row in the same order.
 */
export async function exportRecords(
  ctx: Ctx,
  type: RecordType,
  req: ExportRequest,
  opts: { listId?: string } = {},
): Promise<Readable> {
  const spec = exportSpecs()[type];
  const c = columnsOf(ctx, type);
  const knex = ctx.em.getKnex();
  const limit = req.limit ?? DEFAULT_EXPORT_ROWS;
  const sortBy = req.sortBy ?? '_id';
  const dir = req.sortOrder ?? 'asc';
  const fields = ['_id', ...(req.fields?.length ? req.fields : spec.fields).filter((f) => f !== '_id')];
  const offset = req.skip ?? ((req.page ?? 1) - 1) * limit;

  const rowsQuery = baseQuery(knex, ctx, c, req, opts.listId);
  if (req.cursor) await applyCursor(knex, ctx, rowsQuery, c, sortBy, dir, req.cursor);
  // Each value arrives as JSON text (valueOf: to_json per value, as json_build_object writes it, or
  // plain text where that is the same); Node puts the keys in between. json_build_object itself cost
  // ~2× the Postgres CPU of this (it resolves each argument's type on every row).
  const values = fields.map((f) => valueOf(c, f, knex.raw('??', [`${c.table}.${c.col(f)}`]).toQuery()));
  rowsQuery.select(values.map((v, i) => knex.raw(`${v.sql}::text as "${i}"`)));
  const writers = values.map((v) => v.write);
  if (sortBy !== '_id') rowsQuery.orderByRaw(`?? ${dir} nulls last`, [`${c.table}.${c.col(sortBy)}`]);
  rowsQuery.orderBy(`${c.table}.id`, dir).limit(limit + 1);
  if (!req.cursor && offset) rowsQuery.offset(offset);
  const counted = (
    baseQuery(knex, ctx, c, req, opts.listId).count({ total: '*' }) as Promise<{ total: string }[]>
  ).then((rows) => Number(rows[0]?.total ?? 0));
  counted.catch(() => undefined); // awaited below; a failure surfaces there

  // Same text as json_build_object: `{"key" : value, "key" : value}`.
  const prefixes = fields.map((f, i) => `${i ? ', ' : '{'}${JSON.stringify(f)} : `);
  const out = new Readable({ read: () => undefined });
  let started: () => void = () => undefined;
  const firstPiece = new Promise<void>((resolve) => (started = resolve));
  let text = '{"data":[';
  let received = 0;
  let lastId: string | null = null;
  const onRow = (row: (string | null)[]): void => {
    if (++received > limit) return; // the extra row only says there is more
    let json = received > 1 ? ',' : '';
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      json += prefixes[i]! + (value === null || value === undefined ? 'null' : (writers[i]?.(value) ?? value));
    }
    text += `${json}}`;
    lastId = row[0]!;
    if (text.length >= CHUNK_CHARS) {
      out.push(text);
      text = '';
      started();
    }
  };
  const finished = (async () => {
    await streamTextRows(ctx.em, rowsQuery.toSQL().toNative(), onRow);
    const hasMore = received > limit;
    const rest: Omit<ExportPage, 'data'> = {
      total: await counted,
      limit,
      hasMore,
      nextCursor: hasMore && lastId ? (writers[0] ? lastId : (JSON.parse(lastId) as string)) : null,
      ...(req.cursor ? {} : req.skip !== undefined ? { skip: req.skip } : { page: req.page ?? 1 }),
    };
    out.push(`${text}],${JSON.stringify(rest).slice(1)}`);
    out.push(null);
  })();
  await Promise.race([firstPiece, finished]);
  finished.catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}
