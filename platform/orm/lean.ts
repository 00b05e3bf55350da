import { createHash } from 'node:crypto';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { BigIntType, type EntityName, type EntityProperty } from '@mikro-orm/core';
import pg from 'pg';
import { leanScopeOf, TENANT_FILTER, type TenantFilterArgs } from './tenant';

// The hot read path (GET /…/:id, the key lookup of every request) without MikroORM's query building,
// identity map and hydration: one parameterised statement on a pooled pg client. Everything else
// (writes, transactions, lists) keeps going through the ORM. This file: the pools, the statements, reading rows back
// as the ORM would and the set-based writes; lean-rows.ts: tenant rows by id or by page (findRowById, findPageRows).

interface PgClient {
  query(config: { text: string; values: unknown[]; name?: string; rowMode?: 'array' }): Promise<{ rows: unknown[] }>;
}
interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
}

/**
 * What the lean reads take: an EntityManager bound to a workspace (forkForWorkspace), or a request
 * Ctx. A Ctx made by lazyWorkspaceCtx that has not made its fork lends the global EM's pool and
 * metadata and its actor's workspace instead, so the read builds no entity manager.
 */
export type LeanSource = EntityManager | { em: EntityManager; actor: { workspaceId: string } };

/** The EM to use and, for a lent scope, the workspace (else the EM's bound one, see boundWorkspaceId). */
export function resolve(source: LeanSource): { em: EntityManager; workspaceId?: string } {
  if (!('actor' in source)) return { em: source };
  return leanScopeOf(source) ?? { em: source.em };
}

type KnexOf = ReturnType<ReturnType<EntityManager['getConnection']>['getKnex']>;

/** The ORM's knex instance behind an EM (the same for the global EM and its forks), memoized per EM. */
const knexByEm = new WeakMap<EntityManager, KnexOf>();
function knexOf(em: EntityManager): KnexOf {
  let knex = knexByEm.get(em);
  if (!knex) knexByEm.set(em, (knex = em.getConnection().getKnex()));
  return knex;
}

/** Lean pools by the knex client of the ORM they serve (attachLeanPool). */
const leanPools = new WeakMap<object, pg.Pool>();

/**
 * Gives the statements of leanQuery outside transactions (an API request's key count and lean reads)
 * a pg pool of their own next to the ORM's, opened with the same connection settings and type
 * parsers: its checkout costs a fraction of knex/tarn's (a timer, events and about ten promises per
 * statement, twice per request). Connections open on demand, at most `max`, and close after 10 s
 * idle. Returns the function that closes the pool (and detaches it). Without a pool (the worker,
 * scripts) leanQuery checks a connection out of the ORM's pool.
 */
export function attachLeanPool(
  em: EntityManager,
  opts: { max: number; onError?: (err: Error) => void },
): () => Promise<void> {
  const client = knexOf(em).client as unknown as { connectionSettings?: unknown };
  const settings = client.connectionSettings;
  // A password function (rotating credentials) is knex's business: keep its pool then.
  if (!settings || typeof settings !== 'object' || opts.max < 1) return async () => undefined;
  const pool = new pg.Pool({
    ...(settings as pg.PoolConfig),
    // knex makes the password non-enumerable once a connection is open: the spread would drop it.
    password: (settings as pg.PoolConfig).password,
    max: opts.max,
    idleTimeoutMillis: 10_000,
    // knex's default acquire timeout: a request waits this long for a connection, then fails as unavailable.
    connectionTimeoutMillis: 60_000,
    allowExitOnIdle: true,
  });
  // An idle connection that drops (server restart) is removed by the pool; the next statement opens another.
  pool.on('error', (err) => opts.onError?.(err));
  leanPools.set(client, pool);
  return async () => {
    if (leanPools.get(client) === pool) leanPools.delete(client);
    await pool.end();
  };
}

/** The lean pool serving this EM's ORM, if one is attached (diagnostics and tests). */
export const leanPoolOf = (em: EntityManager): pg.Pool | undefined => leanPools.get(knexOf(em).client as object);

/**
 * Runs one statement (`$1`… placeholders, each used once and in order) on a pooled connection: the
 * lean pool's when one is attached (attachLeanPool), else one checked out of the ORM's pool.
 * `name` makes it a prepared statement per connection (parsed and planned once). Inside a
 * transaction it runs on the transaction's connection, its values still sent as bind parameters
 * (the ORM's execute would escape them into the SQL text, slow for the large JSON parameters of
 * set-based writes).
 */
export async function leanQuery<R>(source: LeanSource, text: string, values: unknown[], name?: string): Promise<R[]> {
  const { em, workspaceId } = resolve(source);
  const knex = knexOf(em);
  // A lent scope (workspaceId set) is a request Ctx that never made its fork: no transaction can be open on it.
  const trx = workspaceId === undefined ? em.getTransactionContext<Knex.Transaction>() : undefined;
  if (trx) {
    const res = (await knex
      .raw(text.replace(/\$\d+/g, '?'), values.map((v) => (v === undefined ? null : v)) as Knex.RawBinding[])
      .transacting(trx)) as { rows: R[] };
    return res.rows;
  }
  const lean = leanPools.get(knex.client as object);
  if (lean) return (await lean.query(name ? { name, text, values } : { text, values })).rows as R[];
  const client = knex.client as unknown as KnexClient;
  const pg = await client.acquireConnection();
  try {
    return (await pg.query(name ? { name, text, values } : { text, values })).rows as R[];
  } finally {
    await client.releaseConnection(pg);
  }
}

interface StreamingPgClient {
  query(query: pg.Query): pg.Query;
}

/**
 * Streams the rows of one statement whose columns are all text (cast in the SQL) to `onRow`, as
 * arrays in select order while they arrive: no row objects, no type parsing, no array of the whole
 * result. Runs on a pooled connection outside any transaction (for large reads such as an export
 * page); resolves when the last row has been handed over.
 */
export async function streamTextRows(
  em: EntityManager,
  statement: { sql: string; bindings: readonly unknown[] },
  onRow: (row: (string | null)[]) => void,
): Promise<void> {
  const values = statement.bindings.map((v) => (v === undefined ? null : v));
  const client = em.getConnection().getKnex().client as unknown as KnexClient;
  const connection = (await client.acquireConnection()) as unknown as StreamingPgClient;
  try {
    await new Promise<void>((resolve, reject) => {
      const query = connection.query(
        new pg.Query({ text: statement.sql, values, rowMode: 'array' } as pg.QueryArrayConfig),
      );
      query.on('row', (row: (string | null)[]) => onRow(row));
      query.on('error', reject);
      query.on('end', () => resolve());
    });
  } finally {
    await client.releaseConnection(connection as unknown as PgClient);
  }
}

/** A plain (single-column, persisted, eager) scalar property: what the lean reads select. */
export const isColumn = (prop: EntityProperty): boolean =>
  prop.kind === 'scalar' && prop.persist !== false && !prop.lazy && !prop.formula && prop.fieldNames?.length === 1;
// Column types pg returns as the ORM would (timestamptz: as text, converted like the ORM converts it).
const PLAIN_COLUMN =
  /^(varchar(\(\d+\))?|text|int|integer|smallint|boolean|double precision|jsonb|text\[\]|timestamptz)$/;
// bigint comes back as text (pg's default for int8) and goes through the property's own ORM type.
const isBigInt = (prop: EntityProperty): boolean =>
  prop.columnTypes?.[0] === 'bigint' && prop.customType instanceof BigIntType;

/**
 * The select list of an entity's plain columns under its property names (`"col" as "prop"`, each
 * prefixed with `alias.` when given), the properties to read back as Dates (see readDates) and the
 * bigint properties to convert (see readRow). `datesAsText` casts timestamps to text (for rows read
 * through JSON, so they parse exactly as a top-level column does).
 */
export function leanColumns(
  source: LeanSource,
  entity: EntityName<object>,
  alias?: string,
  opts: { datesAsText?: boolean } = {},
): { select: string; dates: string[]; converted: EntityProperty[] } {
  const meta = resolve(source).em.getMetadata().get(entity);
  const columns = (Object.values(meta.properties) as EntityProperty[]).filter(isColumn);
  for (const prop of columns) {
    const type = prop.columnTypes?.[0] ?? '';
    if (!PLAIN_COLUMN.test(type) && !isBigInt(prop))
      throw new Error(`${meta.className}.${prop.name}: column type ${type} not lean-readable`);
  }
  const prefix = alias ? `${alias}.` : '';
  const isDate = (prop: EntityProperty): boolean => prop.columnTypes[0] === 'timestamptz';
  return {
    select: columns
      .map((prop) => {
        const cast = (isDate(prop) && opts.datesAsText) || isBigInt(prop) ? '::text' : '';
        return `${prefix}"${prop.fieldNames[0]}"${cast} as "${prop.name}"`;
      })
      .join(', '),
    dates: columns.filter(isDate).map((prop) => prop.name),
    converted: columns.filter(isBigInt),
  };
}

/** Turns the timestamp columns of a lean row (text with the ORM's pg types) into Dates, as the ORM does. */
export function readDates<T extends object>(source: LeanSource, row: Record<string, unknown>, dates: string[]): T {
  const platform = resolve(source).em.getPlatform();
  for (const prop of dates) if (row[prop] != null) row[prop] = platform.parseDate(row[prop] as string);
  return row as T;
}

/** readDates plus the bigint columns, each converted by its property's ORM type exactly as a findOne would. */
export function readRow<T extends object>(
  source: LeanSource,
  row: Record<string, unknown>,
  cols: { dates: string[]; converted?: EntityProperty[] },
): T {
  const { em } = resolve(source);
  const platform = em.getPlatform();
  for (const prop of cols.converted ?? [])
    if (row[prop.name] != null) row[prop.name] = prop.customType!.convertToJSValue(row[prop.name], platform);
  return readDates<T>(em, row, cols.dates);
}

/**
 * The workspace bound to the EM's tenant filter (forkForWorkspace), or lent by a request Ctx (its
 * actor's, which its fork is bound to); throws for an EM without one (fail closed).
 */
export function boundWorkspaceId(source: LeanSource): string {
  const { em, workspaceId: lent } = resolve(source);
  if (lent) return lent;
  const workspaceId = (em.getFilterParams(TENANT_FILTER) as TenantFilterArgs | undefined)?.workspaceId;
  if (!workspaceId) throw new Error('tenant filter: no workspace bound to this entity manager');
  return workspaceId;
}

const column = (key: string): string => (key === '_id' ? 'id' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/**
 * One multi-row insert from JSON (the rows' keys are entity property names): a single statement
 * and no per-row ORM work, which is most of a batch's CPU otherwise. Columns come from the first
 * row. Returns the SQL and pushes its one parameter, so several can share one statement (CTEs).
 */
export function insertRowsSql(table: string, rows: Record<string, unknown>[], params: unknown[]): string {
  const keys = Object.keys(rows[0]!);
  const names = keys.map(column);
  // Renamed with a plain loop: Object.fromEntries over mapped pairs cost ~3× as much for a group of e-mail rows.
  const renamed = rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) out[names[i]!] = r[keys[i]!];
    return out;
  });
  params.push(JSON.stringify(renamed));
  const cols = names.map((c) => `"${c}"`).join(', ');
  return `insert into "${table}" (${cols}) select ${cols} from jsonb_populate_recordset(null::"${table}", ?::jsonb)`;
}

/**
 * Several statements as one, each a data-modifying CTE under its name (a later one may read an earlier one's
 * `returning`): atomic without a transaction, one round trip.
 */
export async function executeAsOne(
  em: EntityManager,
  ctes: [name: string, sql: string][],
  params: unknown[],
): Promise<void> {
  if (!ctes.length) return;
  await executeLean(em, `with ${ctes.map(([name, sql]) => `${name} as (${sql})`).join(', ')} select 1`, params);
}

/**
 * One statement with `?` placeholders (no literal `?` in its text), its values sent as bind
 * parameters (leanQuery) instead of being escaped into the SQL text as em.execute does: the set-based
 * writes carry their rows as one JSON parameter, often hundreds of kilobytes.
 */
export async function executeLean<R = unknown>(
  em: EntityManager,
  sql: string,
  params: unknown[],
  opts: { prepare?: boolean } = {},
): Promise<R[]> {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  if (n !== params.length) throw new Error(`executeLean: ${n} placeholders for ${params.length} values`);
  return leanQuery<R>(em, text, params, opts.prepare ? preparedName(text) : undefined);
}

const preparedNames = new Map<string, string>();
/**
 * The name of a statement prepared per connection (parsed and planned once): one per distinct text, so a statement
 * run often in a few shapes (a hot write path) is planned once per shape and connection.
 */
export function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (!name) {
    if (preparedNames.size >= 1000) preparedNames.clear();
    name = `lean_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    preparedNames.set(text, name);
  }
  return name;
}

/** Every (string-keyed) property of an entity type: a plain row for insertRowsSql that names them all (`satisfies`). */
export type FullRow<T> = { [K in keyof T as K extends string ? K : never]-?: unknown };
