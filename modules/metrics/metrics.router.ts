import { stringify } from 'csv-stringify/sync';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as metrics from './metrics.service';
import {
  catalogQuery,
  MAX_BATCH_QUERIES,
  MAX_POINTS,
  metricBatchBody,
  metricBatchView,
  metricCatalogEntryView,
  metricPointsBody,
  metricPointsResultView,
  metricQuery,
  metricResultView,
} from './metrics.schemas';
import { envelopes } from '../../platform/http/crud';
import { ok, pageOf, route, type Reply } from '../../platform/http/registry';
import { read } from '../../platform/http/access';

const section = 'Metrics';

const csv = (results: Record<string, unknown>[]): Reply => ({
  status: 200,
  body: stringify(metrics.csvRows(results), { header: true, columns: metrics.CSV_COLUMNS }),
  headers: { 'content-type': 'text/csv; charset=utf-8' },
});

const QUERY_DOC = [
  '`metricKey` (req), `from` (req; a bare date is local midnight in `tz`), `to` (default now; a bare date includes that day),',
  "`granularity` (hour, day default, week (Monday), month, quarter, year), `dimension` (one of the metric's dimensions),",
  '`compareTo` (previous_period, previous_year), `tz` (IANA, default Europe/Copenhagen), `format` (json default, csv).',
  'Answer: `{ metricKey, label, format, mode, measureType, granularity, timezone, from, to, total, series: [{ bucket, value }],',
  'dimension?, breakdown?: [{ dimensionValue, dimensionLabel, total, series }], compare?: { from, to, total, series }, delta?: { abs, pct } }`;',
  'buckets are zero-filled (null for averages and rates); snapshot metrics ignore the window (total only, series empty).',
  'CSV columns: metricKey, label, granularity, period (current, compare), bucket, dimension, dimensionValue, dimensionLabel, value, format.',
].join(' ');

export const metricsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/metrics',
    section,
    access: read,
    query: catalogQuery,
    summary:
      'The metric catalog: entries { key, label, description, category, format, mode, dimensions, measureType }, built-in metrics then `external:<seriesKey>` series; filter `category`. Default limit 100.',
    response: envelopes.list(metricCatalogEntryView),
    handler: async ({ ctx, query }) => pageOf(await metrics.listCatalog(ctx, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/metrics/query',
    section,
    access: read,
    query: metricQuery,
    summary: 'Query one metric: total, bucketed series, optional dimension breakdown and comparison with delta.',
    description: `${QUERY_DOC} An unknown metric or dimension is 400.`,
    response: {
      json: envelopes.data(metricResultView),
      otherMedia: ['text/csv'],
      description: 'The result; with format=csv the CSV rows (text/csv).',
    },
    handler: async ({ ctx, query }) => {
      const result = await metrics.queryMetric(ctx, query);
      return query.format === 'csv' ? csv([result]) : ok(result);
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/metrics/query',
    section,
    access: read,
    body: metricBatchBody,
    summary: `Query up to ${MAX_BATCH_QUERIES} metrics at once: \`{ requests: [ …GET fields ], format }\` → \`{ data: { results } }\` in request order.`,
    description:
      'An entry whose metric is unknown or whose query is invalid is `{ metricKey, error, code }` with code `unknown_metric` or `invalid_query`; the other entries still answer. With format csv the rows of every successful entry, in order.',
    response: {
      json: envelopes.data(metricBatchView),
      otherMedia: ['text/csv'],
      description: 'The results in request order; with format=csv the CSV rows of every successful entry (text/csv).',
    },
    handler: async ({ ctx, body }) => {
      const results = await metrics.queryMetrics(ctx, body.requests);
      return body.format === 'csv' ? csv(results) : ok({ results });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/metrics/points',
    section,
    access: { scopes: ['write'] },
    body: metricPointsBody,
    summary: `Upsert up to ${MAX_POINTS} daily points of an external series (\`external:<seriesKey>\` in the catalog): seriesKey (req; letters, digits, _ . -), label, description, format (integer, decimal default, currency, percent, duration), points (req: [{ date, value, dimensions? }]).`,
    description:
      'Idempotent: one value per series, day and dimension combination; sending a day again replaces its value. Answers `{ seriesKey, metricKey, received, upserted, inserted, updated }`.',
    response: envelopes.data(metricPointsResultView),
    handler: async ({ ctx, body }) => ok(await metrics.upsertPoints(ctx, body)),
  }),
];
