import type { Ctx } from '../../platform/context';
import { EXTERNAL_PREFIX, type MetricFormat } from './catalog';
import type { MetricPointsBody, MetricPointsResultView } from './metrics.schemas';
import { MetricSeries } from './metric-series.entity';

type Row = Record<string, unknown>;

/**
 * Idempotent daily upsert of an external series: one value per (day, dimensions); sending the same
 * day again replaces it. The series (label, description, format, dimension keys) is created or updated.
 */
export async function upsertPoints(ctx: Ctx, body: MetricPointsBody): Promise<MetricPointsResultView> {
  const dimensionKeys = new Set<string>();
  const unique = new Map<string, { day: string; dims: Record<string, string>; dimsKey: string; value: number }>();
  for (const point of body.points) {
    const dims = Object.fromEntries(Object.entries(point.dimensions ?? {}).sort(([a], [b]) => a.localeCompare(b)));
    for (const k of Object.keys(dims)) dimensionKeys.add(k);
    const dimsKey = Object.keys(dims).length ? JSON.stringify(dims) : '';
    unique.set(`${point.date}|${dimsKey}`, { day: point.date, dims, dimsKey, value: point.value });
  }
  const ws = ctx.actor.workspaceId;
  return ctx.em.transactional(async (em) => {
    const existing = await em.findOne(MetricSeries, { seriesKey: body.seriesKey });
    const keys = [...new Set([...(existing?.dimensionKeys ?? []), ...dimensionKeys])].sort();
    if (existing) {
      if (body.label !== undefined) existing.label = body.label;
      if (body.description !== undefined) existing.description = body.description;
      if (body.format !== undefined) existing.format = body.format as MetricFormat;
      existing.dimensionKeys = keys;
      existing.updatedAt = new Date();
    } else {
      em.persist(
        em.create(MetricSeries, {
          workspaceId: ws,
          seriesKey: body.seriesKey,
          label: body.label ?? body.seriesKey,
          description: body.description ?? null,
          format: (body.format ?? 'decimal') as MetricFormat,
          dimensionKeys: keys,
        }),
      );
    }
    await em.flush();
    const points = [...unique.values()];
    let inserted = 0;
    for (let i = 0; i < points.length; i += 1000) {
      const chunk = points.slice(i, i + 1000);
      const res: Row[] = await em.execute(
        `insert into metric_point (workspace_id, series_key, day, dimensions_key, dimensions, value, updated_at)
         select ?, ?, x.day::date, x.dims_key, x.dims::jsonb, x.value, now()
           from jsonb_to_recordset(?::jsonb) as x(day text, dims_key text, dims text, value float8)
         on conflict (workspace_id, series_key, day, dimensions_key) do update set value = excluded.value, dimensions = excluded.dimensions, updated_at = now()
         returning (xmax = 0) as inserted`,
        [
          ws,
          body.seriesKey,
          JSON.stringify(
            chunk.map((p) => ({ day: p.day, dims_key: p.dimsKey, dims: JSON.stringify(p.dims), value: p.value })),
          ),
        ],
        'all',
      );
      inserted += res.filter((r) => r.inserted).length;
    }
    return {
      seriesKey: body.seriesKey,
      metricKey: `${EXTERNAL_PREFIX}${body.seriesKey}`,
      received: body.points.length,
      upserted: points.length,
      inserted,
      updated: points.length - inserted,
    };
  });
}
