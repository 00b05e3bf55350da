import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, EntityProperty } from '@mikro-orm/core';
import {
  boundWorkspaceId,
  isColumn,
  leanColumns,
  leanQuery,
  preparedName,
  readRow,
  resolve,
  type LeanSource,
} from './lean';

// Tenant rows read lean (see lean.ts): by primary key or a unique property, or one page of a table, as plain
// objects under the entity's property names, converted as the ORM would convert them.

interface ByIdStatement {
  text: string;
  name: string;
  /** Properties read as text that the ORM turns into Dates (its pg types leave timestamps as text). */
  dates: string[];
  /** bigint properties, converted by their ORM type (BigIntType: number, string or bigint by its mode). */
  converted?: EntityProperty[];
  /** A child collection read in the same statement (json_agg), with how to convert its rows. */
  children?: { as: string; dates: string[]; converted: EntityProperty[] };
}
const byIdStatements = new Map<string, ByIdStatement>();

/** A child collection read with its parent (findRowById's `children`): rows whose `foreignKey` is the parent's id. */
export interface LeanChildren {
  /** The property of the returned row holding the children (an array, [] when none). */
  as: string;
  entity: EntityName<object>;
  /** Property of the child naming the parent's primary key. */
  foreignKey: string;
  /** Property of the child to order by (ascending). */
  orderBy: string;
}

function byIdStatement(
  em: EntityManager,
  entity: EntityName<object>,
  by?: string,
  where: string[] = [],
  children?: LeanChildren,
): ByIdStatement {
  const meta = em.getMetadata().get(entity);
  const childMeta = children ? em.getMetadata().get(children.entity) : undefined;
  const key = [meta.className, by ?? '', where.join(','), childMeta?.className ?? '', children?.as ?? ''].join(':');
  const cached = byIdStatements.get(key);
  if (cached) return cached;
  const props = Object.values(meta.properties) as EntityProperty[];
  if (!props.some((prop) => prop.name === 'workspaceId')) throw new Error(`${meta.className} is not a tenant entity`);
  const field = (m: typeof meta, name: string): string => {
    const prop = m.properties[name as keyof typeof m.properties] as EntityProperty | undefined;
    if (!prop || !isColumn(prop)) throw new Error(`${m.className}.${name}: not a column`);
    return prop.fieldNames[0]!;
  };
  const pk = field(meta, meta.primaryKeys[0] as string);
  const { select, dates, converted } = leanColumns(em, entity, 't');
  let childSelect = '';
  let childCols: ByIdStatement['children'];
  if (children && childMeta) {
    if (!Object.values(childMeta.properties).some((prop) => (prop as EntityProperty).name === 'workspaceId'))
      throw new Error(`${childMeta.className} is not a tenant entity`);
    const cols = leanColumns(em, children.entity, 'c0', { datesAsText: true });
    // The children's workspace is in their WHERE too: fail closed even for a child row pointing across workspaces.
    childSelect = `, (select coalesce(json_agg(c order by c."${children.orderBy}"), '[]'::json) from (select ${cols.select}
        from "${childMeta.tableName}" c0 where c0."${field(childMeta, children.foreignKey)}" = t."${pk}"
        and c0."workspace_id" = $2) c) as "${children.as}"`;
    field(childMeta, children.orderBy);
    childCols = { as: children.as, dates: cols.dates, converted: cols.converted };
  }
  const extra = where.map((prop, i) => ` and t."${field(meta, prop)}" = $${i + 3}`).join('');
  const text = `select ${select}${childSelect} from "${meta.tableName}" t where t."${by ? field(meta, by) : pk}" = $1 and t."workspace_id" = $2${extra}`;
  const statement = {
    text,
    name: by || where.length || children ? preparedName(text) : `lean_by_id_${meta.tableName}`,
    dates,
    converted,
    children: childCols,
  };
  byIdStatements.set(key, statement);
  return statement;
}

/**
 * One tenant row by primary key (or by the unique property `by`), its columns under the entity's
 * property names (what the serializers read), or null. Fails closed like the tenant filter: the
 * workspace bound to the EM is always in the WHERE clause, and an EM without one throws. Only for
 * plain columns (strings, numbers, dates, jsonb, arrays), which pg returns as the ORM would, and
 * bigint ones, converted by their ORM type; not a managed entity. `where` adds equality conditions
 * on other properties; `children` reads a child collection in the same statement.
 */
export async function findRowById<T extends object>(
  source: LeanSource,
  entity: EntityName<T>,
  id: string,
  opts: { by?: string; where?: Record<string, string>; children?: LeanChildren } = {},
): Promise<T | null> {
  const workspaceId = boundWorkspaceId(source);
  const { em } = resolve(source);
  const where = Object.entries(opts.where ?? {});
  const statement = byIdStatement(
    em,
    entity as EntityName<object>,
    opts.by,
    where.map(([prop]) => prop),
    opts.children,
  );
  const values = [id, workspaceId, ...where.map(([, value]) => value)];
  const row = (await leanQuery<Record<string, unknown>>(source, statement.text, values, statement.name))[0];
  if (!row) return null;
  const children = statement.children;
  if (children)
    row[children.as] = (row[children.as] as Record<string, unknown>[]).map((child) => readRow(em, child, children));
  return readRow<T>(em, row, statement);
}

const pageStatements = new Map<string, ByIdStatement>();

/**
 * One page of a tenant table ordered by a timestamp property then the primary key (both in `dir`),
 * with the workspace's total, in one prepared statement: the rows as findRowById reads them. Fails
 * closed like findRowById. For the unfiltered lists only; filtered ones keep the ORM's findAndCount.
 */
export async function findPageRows<T extends object>(
  source: LeanSource,
  entity: EntityName<T>,
  order: { prop: 'createdAt' | 'updatedAt'; dir: 'asc' | 'desc' },
  page: { page: number; limit: number },
): Promise<{ items: T[]; total: number }> {
  const workspaceId = boundWorkspaceId(source);
  const { em } = resolve(source);
  const meta = em.getMetadata().get(entity as EntityName<object>);
  const key = `${meta.className}:${order.prop}:${order.dir}`;
  let statement = pageStatements.get(key);
  if (!statement) {
    byIdStatement(em, entity as EntityName<object>); // the same checks: a tenant entity, plain columns only
    const field = (name: string): string =>
      (meta.properties[name as keyof typeof meta.properties] as EntityProperty).fieldNames[0]!;
    const { select, dates, converted } = leanColumns(em, entity as EntityName<object>);
    const dir = order.dir === 'asc' ? 'asc' : 'desc';
    const table = `"${meta.tableName}"`;
    statement = {
      // The count comes back even for a page past the end (one row, its columns null).
      text: `select t.lean_total, p.* from (select count(*)::int as lean_total from ${table} where "workspace_id" = $1) t
        left join lateral (select ${select} from ${table} where "workspace_id" = $1
          order by "${field(order.prop)}" ${dir}, "${field(meta.primaryKeys[0] as string)}" ${dir} limit $2 offset $3) p on true`,
      name: `lean_page_${meta.tableName}_${field(order.prop)}_${dir}`,
      dates,
      converted,
    };
    pageStatements.set(key, statement);
  }
  const rows = await leanQuery<Record<string, unknown>>(
    source,
    statement.text,
    [workspaceId, page.limit, (page.page - 1) * page.limit],
    statement.name,
  );
  const total = (rows[0]?.lean_total as number | undefined) ?? 0;
  if (rows.length === 1 && rows[0]![meta.primaryKeys[0] as string] == null) return { items: [], total };
  return { items: rows.map((row) => readRow<T>(em, row, statement)), total };
}
