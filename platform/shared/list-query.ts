import { z } from 'zod';

/** ISO 8601 date or datetime in a query string, as a Date. */
export const isoDateParam = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'must be an ISO 8601 date or datetime',
  })
  .transform((s) => new Date(s));

const boolParam = z.enum(['true', 'false']).transform((s) => s === 'true');
export { boolParam };

export interface ListQueryOptions<S extends z.ZodRawShape> {
  /** Largest accepted `limit` (spec: 100, companies/people/leads 500). Larger values are refused, not clamped. */
  maxLimit?: number;
  /** Stored field names a `fields=` projection may name; omit to disable `fields`. */
  fields?: readonly string[];
  /** Adds updatedSince, createdAfter, dateFrom/dateTo and their aliases. */
  dates?: boolean;
  /** Strict lists answer 400 naming any unknown query parameter. */
  strict?: boolean;
  extra?: S;
}

export function pageParams(maxLimit = 100) {
  return {
    page: z.coerce
      .number({ message: 'page must be a number' })
      .int('page must be an integer')
      .min(1, 'page must be at least 1')
      .default(1),
    limit: z.coerce
      .number({ message: 'limit must be a number' })
      .int('limit must be an integer')
      .min(1, 'limit must be at least 1')
      .max(maxLimit, `limit must be at most ${maxLimit}`)
      .default(20),
  };
}

export function fieldsQuery(allowed: readonly string[]) {
  return z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    )
    .superRefine((list, ctx) => {
      const unknown = list.filter((f) => !allowed.includes(f));
      if (unknown.length)
        ctx.addIssue({
          code: 'custom',
          message: `unknown field(s) ${unknown.join(', ')}; allowed: ${allowed.join(', ')}`,
        });
    });
}

const dateParams = {
  updatedSince: isoDateParam.optional(),
  createdAfter: isoDateParam.optional(),
  dateFrom: isoDateParam.optional(),
  startDate: isoDateParam.optional().describe('alias of dateFrom'),
  from: isoDateParam.optional().describe('alias of dateFrom'),
  dateTo: isoDateParam.optional(),
  endDate: isoDateParam.optional().describe('alias of dateTo'),
  to: isoDateParam.optional().describe('alias of dateTo'),
};

export interface DateFilter {
  updatedSince?: Date;
  createdAfter?: Date;
  dateFrom?: Date;
  dateTo?: Date;
}

/** Shared list query: page/limit, view, fields, date filters with aliases, resource extras. */
export function listQuery<S extends z.ZodRawShape>(opts: ListQueryOptions<S> = {}) {
  const shape = {
    ...pageParams(opts.maxLimit ?? 100),
    view: z.enum(['summary', 'full']).default('full'),
    ...(opts.fields ? { fields: fieldsQuery(opts.fields).optional() } : {}),
    ...(opts.dates === false ? {} : dateParams),
    ...(opts.extra ?? ({} as S)),
  };
  const base = opts.strict ? z.strictObject(shape) : z.object(shape);
  return base.transform((q) => {
    const r = q as Record<string, unknown>;
    const dateFrom = r.dateFrom ?? r.startDate ?? r.from;
    const dateTo = r.dateTo ?? r.endDate ?? r.to;
    const { startDate: _s, from: _f, endDate: _e, to: _t, ...rest } = r;
    return { ...rest, dateFrom, dateTo } as typeof q & { fields?: string[]; view: 'summary' | 'full' } & DateFilter;
  });
}

/** The list and get query keys `project` reads. */
export interface ProjectionQuery {
  view?: 'summary' | 'full';
  fields?: string[];
}

/** Projects a serialized record to `fields` (always keeping `_id`) or to the summary field set. */
export function project<T extends Record<string, unknown>>(
  record: T,
  opts: ProjectionQuery & { summary?: readonly string[] },
): Partial<T> {
  const keys = opts.fields?.length ? opts.fields : opts.view === 'summary' ? opts.summary : undefined;
  if (!keys) return record;
  const out: Record<string, unknown> = { _id: record._id };
  for (const key of keys) if (key in record) out[key] = record[key];
  return out as Partial<T>;
}

/**
 * A paged list whose rows `project` trims (crudRoutes' `service.list`): `list`'s page, each row cut to the query's
 * `fields`, or to `summary` for `view=summary`; `extra` adds envelope keys.
 */
export function projectedList<C, Q, T extends Record<string, unknown>>(
  list: (ctx: C, query: Q) => Promise<{ items: T[]; total: number }>,
  summary: readonly string[],
  extra?: (query: NoInfer<Q> & ProjectionQuery) => Record<string, unknown>,
): (
  ctx: C,
  query: NoInfer<Q> & ProjectionQuery,
) => Promise<{ items: Partial<T>[]; total: number; extra?: Record<string, unknown> }> {
  return async (ctx, query) => {
    const { items, total } = await list(ctx, query);
    const page = { items: items.map((row) => project(row, { ...query, summary })), total };
    return extra ? { ...page, extra: extra(query) } : page;
  };
}

/** A read whose record `project` trims to the get query's `fields` (crudRoutes' `service.get`). */
export function projectedRead<C, T extends Record<string, unknown>>(
  read: (ctx: C, id: string) => Promise<T>,
): (ctx: C, id: string, query?: unknown) => Promise<Partial<T>> {
  return async (ctx, id, query) => project(await read(ctx, id), query as ProjectionQuery);
}
