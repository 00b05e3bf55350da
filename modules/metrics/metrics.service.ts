import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import {
  addDays,
  bucketLabels,
  compareWindow,
  MAX_BUCKETS,
  resolveWindow,
  SQL_LABEL,
  type Granularity,
  type Window,
} from './buckets';
import { BUILT_IN_METRICS, catalogEntry, EXTERNAL_PREFIX, type DimensionDef, type MetricDef } from './catalog';
import type { MetricCatalogEntryView, MetricErrorEntryView, MetricResultView } from './metrics.schemas';
import { MetricSeries } from './metric-series.entity';
import type { Aggregated } from './metric-csv';
import { localDay } from '../reports';

// Metric reads are SQL aggregates; raw SQL bypasses the tenant filter, so each statement binds the
// workspace explicitly. Metric keys and dimensions only ever select from the catalog's own SQL.

type Row = Record<string, unknown>;
const rows = (ctx: Ctx, sql: string, params: unknown[]): Promise<Row[]> => ctx.em.execute(sql, params, 'all');
const round = (v: number): number => Math.round(v * 10_000) / 10_000;

export { CSV_COLUMNS, csvRows } from './metric-csv';
export { upsertPoints } from './metric-points.service';

/** A metric query's failure: 400 on GET; a batch reports it per entry with `code` (unknown_metric, invalid_query). */
export class MetricError extends DomainError {
  constructor(
    readonly entryCode: 'unknown_metric' | 'invalid_query',
    message: string,
  ) {
    super('validation', message);
  }
}

interface Resolved {
  def: MetricDef;
  entry: ReturnType<typeof catalogEntry>;
}

async function externalDef(ctx: Ctx, key: string): Promise<Resolved | undefined> {
  const seriesKey = key.slice(EXTERNAL_PREFIX.length);
  const series = await ctx.em.findOne(MetricSeries, { seriesKey });
  if (!series) return undefined;
  const dimensions: DimensionDef[] = series.dimensionKeys.map((k) => ({
    key: k,
    label: k,
    column: k,
    labels: 'value',
  }));
  const def: MetricDef = {
    key,
    label: series.label,
    description: series.description ?? `External series ${seriesKey}`,
    category: 'external',
    format: series.format,
    mode: 'flow',
    measureType: 'external',
    table: 'metric_point',
    timeColumn: 'day',
    aggregate: 'coalesce(sum(t.value), 0)::float8',
    dimensions,
  };
  return { def, entry: catalogEntry(def) };
}

async function resolve(ctx: Ctx, key: string): Promise<Resolved> {
  const builtIn = BUILT_IN_METRICS.find((m) => m.key === key);
  if (builtIn) return { def: builtIn, entry: catalogEntry(builtIn) };
  if (key.startsWith(EXTERNAL_PREFIX)) {
    const external = await externalDef(ctx, key);
    if (external) return external;
  }
  throw new MetricError(
    'unknown_metric',
    `unknown metricKey ${JSON.stringify(key.slice(0, 100))}; GET /api/v1/metrics lists the catalog`,
  );
}

/** The catalog: built-in metrics plus the workspace's external series, optionally one category. */
export async function listCatalog(
  ctx: Ctx,
  query: { category?: string; page: number; limit: number },
): Promise<{ items: MetricCatalogEntryView[]; total: number }> {
  const external = await ctx.em.find(MetricSeries, {}, { orderBy: { seriesKey: 'asc' } });
  const entries: MetricCatalogEntryView[] = [
    ...BUILT_IN_METRICS.map(catalogEntry),
    ...external.map((s) =>
      catalogEntry({
        key: `${EXTERNAL_PREFIX}${s.seriesKey}`,
        label: s.label,
        description: s.description ?? `External series ${s.seriesKey}`,
        category: 'external',
        format: s.format,
        mode: 'flow',
        measureType: 'external',
        dimensions: s.dimensionKeys.map((k) => ({ key: k, label: k })),
      }),
    ),
  ].filter((e) => !query.category || e.category === query.category);
  const start = (query.page - 1) * query.limit;
  return { items: entries.slice(start, start + query.limit), total: entries.length };
}

export interface MetricRequest {
  metricKey: string;
  from: string;
  to?: string;
  granularity: Granularity;
  dimension?: string;
  compareTo?: 'previous_period' | 'previous_year';
  tz: string;
}

function timeExpr(def: MetricDef): string {
  return def.timeColumn.includes('(') ? def.timeColumn : `t.${def.timeColumn}`;
}

function dimensionExpr(def: MetricDef, dim: DimensionDef): { sql: string; params: unknown[] } {
  if (def.measureType === 'external') return { sql: `t.dimensions->>?`, params: [dim.column] };
  return { sql: `t.${dim.column}`, params: [] };
}

/** FROM + WHERE over alias `t` for one window (snapshot metrics take no window). */
function source(ctx: Ctx, def: MetricDef, window: Window | null): { sql: string; params: unknown[] } {
  const params: unknown[] = [ctx.actor.workspaceId];
  let sql = ` from ${def.table} t where t.workspace_id = ?`;
  if (def.measureType === 'external') {
    sql += ' and t.series_key = ?';
    params.push(def.key.slice(EXTERNAL_PREFIX.length));
  }
  if (def.where) sql += ` and ${def.where}`;
  if (window) {
    if (def.measureType === 'external') {
      // Points are days: a day belongs to the window when its local midnight does.
      sql += ' and t.day >= ?::date and t.day < ?::date';
      params.push(window.from.toISOString().slice(0, 10), window.to.toISOString().slice(0, 10));
    } else {
      sql += ` and ${timeExpr(def)} >= ? and ${timeExpr(def)} < ?`;
      params.push(window.from, window.to);
    }
  }
  return { sql, params };
}

/**
 * Total, per-bucket series and (with a dimension) per-value totals and series of one window, in one
 * statement and one scan: GROUPING SETS over (bucket, dimension value), (dimension value), (bucket)
 * and (). Rows are bucketed by the truncated local timestamp and only each group is formatted.
 */
async function aggregate(
  ctx: Ctx,
  def: MetricDef,
  window: Window | null,
  req: MetricRequest,
  dim: DimensionDef | undefined,
  localWindow?: { fromDay: string; toDay: string },
): Promise<Aggregated> {
  const extWindow =
    def.measureType === 'external' && window && localWindow
      ? ({
          from: new Date(`${localWindow.fromDay}T00:00:00Z`),
          to: new Date(`${localWindow.toDay}T00:00:00Z`),
        } as Window)
      : window;
  const src = source(ctx, def, extWindow);
  const d = dim ? dimensionExpr(def, dim) : undefined;
  const num = (v: unknown) => (v === null || v === undefined ? null : round(Number(v)));
  let labels: string[] = [];
  const bucketed = Boolean(window && def.mode === 'flow');
  if (bucketed) {
    labels = bucketLabels(window!, req.granularity, req.tz);
    if (labels.length > MAX_BUCKETS)
      throw new MetricError(
        'invalid_query',
        `the window has more than ${MAX_BUCKETS} ${req.granularity} buckets; choose a coarser granularity`,
      );
  }
  const inner: string[] = [];
  const innerParams: unknown[] = [];
  if (bucketed) {
    const local = def.measureType === 'external' ? 't.day::timestamp' : `(${timeExpr(def)} at time zone ?)`;
    inner.push(`date_trunc(?, ${local}) as metric_bucket`);
    innerParams.push(req.granularity, ...(def.measureType === 'external' ? [] : [req.tz]));
  }
  if (d) {
    inner.push(`${d.sql} as metric_dim`);
    innerParams.push(...d.params);
  }
  const sets =
    bucketed && d
      ? '(t.metric_bucket, t.metric_dim), (t.metric_dim), (t.metric_bucket), ()'
      : bucketed
        ? '(t.metric_bucket), ()'
        : d
          ? '(t.metric_dim), ()'
          : '()';
  const found = await rows(
    ctx,
    `select ${bucketed ? `to_char(t.metric_bucket, '${SQL_LABEL(req.granularity)}') as bucket, grouping(t.metric_bucket) as gb, ` : ''}${d ? 't.metric_dim as dim, grouping(t.metric_dim) as gd, ' : ''}${def.aggregate} as value
       from (select ${[...inner, 't.*'].join(', ')}${src.sql}) t
      group by grouping sets (${sets})`,
    [...innerParams, ...src.params],
  );
  const isSet = (r: Row, key: 'gb' | 'gd') => Number(r[key] ?? 1) === 0;
  const zero = def.measureType === 'average' || def.measureType === 'ratio' ? null : 0;
  const seriesOf = (bucketRows: Row[]) => {
    const byBucket = new Map(bucketRows.map((r) => [String(r.bucket), num(r.value)]));
    return labels.map((bucket) => ({ bucket, value: byBucket.has(bucket) ? byBucket.get(bucket)! : zero }));
  };
  const grand = found.find((r) => !isSet(r, 'gb') && !isSet(r, 'gd'));
  const overall: Aggregated = {
    total: grand ? (num(grand.value) ?? zero) : zero,
    series: seriesOf(found.filter((r) => isSet(r, 'gb') && !isSet(r, 'gd'))),
  };
  if (!d) return overall;
  const dimKey = (v: unknown) => (v === null || v === undefined ? null : String(v));
  const totals = found.filter((r) => !isSet(r, 'gb') && isSet(r, 'gd'));
  const cells = new Map<string | null, Row[]>();
  for (const b of found) {
    if (!isSet(b, 'gb') || !isSet(b, 'gd')) continue;
    const list = cells.get(dimKey(b.dim));
    if (list) list.push(b);
    else cells.set(dimKey(b.dim), [b]);
  }
  const labelsByValue = await dimensionLabels(
    ctx,
    dim!,
    totals.map((r) => r.dim),
  );
  const breakdown = totals
    .map((r) => ({
      dimensionValue: dimKey(r.dim),
      dimensionLabel:
        r.dim === null || r.dim === undefined ? '(none)' : (labelsByValue.get(String(r.dim)) ?? String(r.dim)),
      total: num(r.value),
      series: seriesOf(cells.get(dimKey(r.dim)) ?? []),
    }))
    .sort(
      (a, b) => (b.total ?? 0) - (a.total ?? 0) || String(a.dimensionLabel).localeCompare(String(b.dimensionLabel)),
    );
  return { ...overall, breakdown };
}

async function dimensionLabels(ctx: Ctx, dim: DimensionDef, values: unknown[]): Promise<Map<string, string>> {
  const ids = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  if (!ids.length || dim.labels === 'value') return new Map();
  const ws = ctx.actor.workspaceId;
  const list = ids.map(() => '?').join(', ');
  const sql = {
    user: `select id, concat_ws(' ', first_name, last_name) as label from app_user where workspace_id = ? and id in (${list})`,
    flow: `select id, title as label from flow where workspace_id = ? and id in (${list})`,
    stage: `select id, title as label from flow_stage where workspace_id = ? and id in (${list})`,
  }[dim.labels];
  const found = await rows(ctx, sql, [ws, ...ids]);
  return new Map(found.map((r) => [String(r.id), String(r.label)]));
}

/** One metric query: total, bucketed series, optional comparison (delta) and dimension breakdown. */
export async function queryMetric(ctx: Ctx, req: MetricRequest): Promise<MetricResultView> {
  const { def, entry } = await resolve(ctx, req.metricKey);
  const dim = req.dimension ? def.dimensions.find((x) => x.key === req.dimension) : undefined;
  if (req.dimension && !dim) {
    throw new MetricError(
      'invalid_query',
      `dimension ${JSON.stringify(req.dimension.slice(0, 100))} is not available for ${def.key}; available: ${def.dimensions.map((x) => x.key).join(', ') || 'none'}`,
    );
  }
  const window = resolveWindow(req.from, req.to, req.tz);
  if (!(window.to > window.from)) throw new MetricError('invalid_query', 'to must be after from');
  const snapshot = def.mode === 'snapshot';
  const localDays = (w: Window) => ({
    fromDay: localDay(w.from, req.tz),
    toDay: addDays(localDay(new Date(w.to.getTime() - 1), req.tz), 1),
  });
  const current = await aggregate(ctx, def, snapshot ? null : window, req, dim, localDays(window));
  const result: MetricResultView = {
    metricKey: def.key,
    label: entry.label,
    format: entry.format,
    mode: entry.mode,
    measureType: entry.measureType,
    granularity: req.granularity,
    timezone: req.tz,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    total: current.total,
    series: current.series,
  };
  if (dim) {
    result.dimension = dim.key;
    result.breakdown = current.breakdown;
  }
  if (req.compareTo && !snapshot) {
    const cw = compareWindow(window, req.compareTo);
    const previous = await aggregate(ctx, def, cw, req, undefined, localDays(cw));
    const abs = current.total === null || previous.total === null ? null : round(current.total - previous.total);
    result.compare = {
      compareTo: req.compareTo,
      from: cw.from.toISOString(),
      to: cw.to.toISOString(),
      total: previous.total,
      series: previous.series,
    };
    result.delta = { abs, pct: abs === null || !previous.total ? null : round((abs / previous.total) * 100) };
  }
  return result;
}

/** A batch: results in request order; a failing entry carries metricKey, error and code. */
export async function queryMetrics(
  ctx: Ctx,
  requests: MetricRequest[],
): Promise<(MetricResultView | MetricErrorEntryView)[]> {
  const results: (MetricResultView | MetricErrorEntryView)[] = [];
  for (const req of requests) {
    try {
      results.push(await queryMetric(ctx, req));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      results.push({
        metricKey: req.metricKey,
        error: error.message,
        code: error instanceof MetricError ? error.entryCode : error.code,
      });
    }
  }
  return results;
}
