/**
 * Lookup node queries. Filters on a record column with an operator SQL can express exactly are
 * pushed into the query; the others (regex, custom fields, relative dates, …) are applied in
 * memory with the condition engine over at most MAX_SCAN candidate rows, so both paths agree
 * with condition nodes on what "equals" or "contains" means.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../../platform/errors';
import { likePattern } from '../../../platform/shared/listing';
import { applyOperator } from '../conditions.pure';
import type { ConditionOperator } from '../definition.schemas';
import { getPath, splitPath } from '../../../platform/shared/path.pure';
import { resolveValue } from '../../../platform/shared/placeholders.pure';
import { plainRecord } from '../../../platform/shared/record-view';
import { resources } from '../../../platform/resources';
import { automationRecordView, findObjectByIdOrSlug } from '../../custom-objects';
import type { CustomObject, CustomObjectRecord } from '../../custom-objects';

/** Candidate rows read when a filter must run in memory. */
export const MAX_SCAN = 5000;

export interface LookupFilter {
  field: string;
  operator: ConditionOperator;
  value?: unknown;
}
export interface LookupSpec {
  entityType: string;
  filters: LookupFilter[];
  sortField: string;
  sortOrder: 1 | -1;
  /** CustomObjectRecord: the object's id or slug. */
  customObjectId?: string;
}

interface LookupEntity {
  entity: string;
  namespace: string | null;
  kind: string;
}
let entities: Map<string, LookupEntity> | null = null;

/**
 * Lookup entityType → ORM entity name (tenant-filtered), context namespace and record kind: the manifests with
 * `automation.lookup`.
 */
function lookupEntities(): ReadonlyMap<string, LookupEntity> {
  entities ??= new Map(
    resources().flatMap((r) => {
      const a = r.automation;
      return a?.lookup
        ? [[a.lookup, { entity: r.entity.meta.className, namespace: a.namespace, kind: a.entityType }] as const]
        : [];
    }),
  );
  return entities;
}

/** The lookup entity types this product can query (a subset of the spec's LOOKUP_ENTITY_TYPES). */
export const lookupEntityTypes = (): string[] => [...lookupEntities().keys()];

/** The record kind and context namespace a lookup entity type maps to (null when not stored here). */
export const lookupEntityInfo = (entityType: string): { namespace: string | null; kind: string } | null => {
  const info = lookupEntities().get(entityType);
  return info ? { namespace: info.namespace, kind: info.kind } : null;
};

type Where = Record<string, unknown>;
const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const isEmpty = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A SQL condition equivalent to the condition engine's operator on this column, or null. */
function sqlCondition(type: string, op: ConditionOperator, value: unknown): Where | null {
  const text = type === 'string';
  const num = type === 'number' || type === 'double' || type === 'integer';
  const date = type === 'Date';
  switch (op) {
    case 'equals':
      if (isEmpty(value)) return null;
      if (text && typeof value === 'string') return { $ilike: escapeLike(value.trim()) };
      if (num && Number.isFinite(Number(value))) return { $eq: Number(value) };
      if (type === 'boolean' && typeof value === 'boolean') return { $eq: value };
      return null;
    case 'contains':
      return text && !isEmpty(value) ? { $ilike: likePattern(String(value).trim()) } : null;
    case 'starts_with':
      return text && !isEmpty(value) ? { $ilike: `${escapeLike(String(value).trim())}%` } : null;
    case 'ends_with':
      return text && !isEmpty(value) ? { $ilike: `%${escapeLike(String(value).trim())}` } : null;
    case 'greater_than':
    case 'less_than':
    case 'greater_than_or_equal':
    case 'less_than_or_equal': {
      const key = { greater_than: '$gt', less_than: '$lt', greater_than_or_equal: '$gte', less_than_or_equal: '$lte' }[
        op
      ];
      if (num && Number.isFinite(Number(value)) && !isEmpty(value)) return { [key]: Number(value) };
      if (date && typeof value === 'string' && !Number.isNaN(Date.parse(value))) return { [key]: new Date(value) };
      return null;
    }
    case 'exists':
      return { $ne: null };
    case 'not_exists':
      return { $eq: null };
    case 'array_contains':
      return type === 'string[]' || type === 'ArrayType'
        ? { $contains: (Array.isArray(value) ? value : [value]).map(String) }
        : null;
    default:
      return null;
  }
}

export interface LookupResult {
  records: Record<string, unknown>[];
  count: number;
  /** More rows matched than were read (limit, or the in-memory scan cap). */
  truncated: boolean;
}

/**
 * Runs a lookup: `limit` rows in sort order (first: 1, all: the fan-out cap), plus the total
 * count. Filter values may hold placeholders, resolved against the execution context.
 */
export async function runLookupQuery(
  em: EntityManager,
  spec: LookupSpec,
  context: Record<string, unknown>,
  opts: { limit: number; timezone: string; now: Date; countOnly?: boolean },
): Promise<LookupResult> {
  const info = lookupEntities().get(spec.entityType);
  if (!info)
    throw new DomainError('not_configured', `lookup entity ${spec.entityType} is not available in this workspace yet`);
  const meta = em.getMetadata().get(info.entity);
  const ands: Where[] = [];
  // Custom records: only the named object's, flattened (field slugs at the top level) so filters read them like API
  // reads.
  let object: CustomObject | null = null;
  if (info.entity === 'CustomObjectRecord') {
    object = await findObjectByIdOrSlug(em, spec.customObjectId ?? '');
    if (!object)
      throw new DomainError('validation', `lookup customObjectId: no custom object ${spec.customObjectId ?? ''}`);
    ands.push({ objectId: object._id });
  }
  const view = (row: object): Record<string, unknown> =>
    object ? automationRecordView(object, row as CustomObjectRecord) : plainRecord(row);
  const inMemory: { path: string[]; op: ConditionOperator; expected: unknown }[] = [];
  for (const f of spec.filters) {
    const expected = Array.isArray(f.value)
      ? f.value.map((v) => resolveValue(v, context, { timezone: opts.timezone }))
      : resolveValue(f.value, context, { timezone: opts.timezone });
    const path = splitPath(f.field.trim().replace(/^\{\{\s*|\s*\}\}$/g, ''));
    const prop =
      path.length === 1
        ? (meta.properties[path[0] as never] as { runtimeType?: string; type?: string } | undefined)
        : undefined;
    const cond = prop ? sqlCondition(String(prop.runtimeType ?? prop.type), f.operator, expected) : null;
    if (cond) ands.push({ [path[0]!]: cond });
    else inMemory.push({ path, op: f.operator, expected });
  }
  const where: Where = ands.length ? { $and: ands } : {};
  const sortProp = meta.properties[spec.sortField as never] ? spec.sortField : null;
  if (!sortProp)
    throw new DomainError('validation', `lookup sortField "${spec.sortField}" is not a field of ${spec.entityType}`);
  const dir = spec.sortOrder === 1 ? 'asc' : 'desc';
  const orderBy = { [sortProp]: dir, _id: dir } as never;

  if (inMemory.length === 0) {
    const count = await em.count<object>(info.entity, where as never);
    if (opts.countOnly) return { records: [], count, truncated: false };
    const rows = await em.find<object>(info.entity, where as never, { orderBy, limit: opts.limit });
    return { records: rows.map(view), count, truncated: count > rows.length };
  }
  const rows = await em.find<object>(info.entity, where as never, { orderBy, limit: MAX_SCAN + 1 });
  const scanned = rows.slice(0, MAX_SCAN).map(view);
  const matches = scanned.filter((rec) =>
    inMemory.every((f) =>
      applyOperator(f.op, getPath(rec, f.path), f.expected, undefined, { now: opts.now, timezone: opts.timezone }),
    ),
  );
  return {
    records: opts.countOnly ? [] : matches.slice(0, opts.limit),
    count: matches.length,
    truncated: rows.length > MAX_SCAN || matches.length > opts.limit,
  };
}

const SKIP_KEYS = new Set(['_id', 'workspaceId', 'createdAt', 'updatedAt', 'scoreBreakdown']);

/** The watched values of a record: the given paths, or its first 10 non-internal keys. */
export function watchedValues(
  record: Record<string, unknown>,
  watchedFields: readonly string[],
): Record<string, unknown> {
  const fields = watchedFields.length
    ? watchedFields
    : Object.keys(record)
        .filter((k) => !SKIP_KEYS.has(k))
        .slice(0, 10);
  return Object.fromEntries(fields.map((f) => [f, getPath(record, splitPath(f)) ?? null]));
}
