import { z } from 'zod';
import { isTimeZone } from '../reports';
import { COMPARE_TO, GRANULARITIES } from './buckets';
import { METRIC_FORMATS } from './catalog';
import { dateTimeView } from '../../platform/shared/views';

const DATE_OR_DATETIME = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;
const bound = (name: string) =>
  z.string().refine((s) => DATE_OR_DATETIME.test(s) && !Number.isNaN(Date.parse(s)), {
    message: `${name} must be an ISO 8601 date or datetime`,
  });

export const MAX_BATCH_QUERIES = 25;
export const MAX_POINTS = 5000;
export const SERIES_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

/** One metric query (GET query string or one entry of the POST batch). */
export const metricQueryShape = {
  metricKey: z.string().trim().min(1, 'metricKey is required').max(200),
  from: bound('from'),
  to: bound('to').optional(),
  granularity: z
    .enum(GRANULARITIES, { message: `granularity must be one of ${GRANULARITIES.join(', ')}` })
    .default('day'),
  dimension: z.string().trim().min(1).max(100).optional(),
  compareTo: z.enum(COMPARE_TO, { message: `compareTo must be one of ${COMPARE_TO.join(', ')}` }).optional(),
  tz: z
    .string()
    .max(64)
    .refine(isTimeZone, { message: 'tz must be an IANA time zone such as Europe/Copenhagen' })
    .default('Europe/Copenhagen'),
};
export const FORMATS = ['json', 'csv'] as const;
export const metricQuery = z.object({
  ...metricQueryShape,
  format: z.enum(FORMATS, { message: 'format must be json or csv' }).default('json'),
});
export type MetricQuery = z.infer<typeof metricQuery>;

export const metricBatchBody = z.object({
  requests: z
    .array(z.object(metricQueryShape))
    .min(1, 'requests must not be empty')
    .max(MAX_BATCH_QUERIES, `at most ${MAX_BATCH_QUERIES} requests`),
  format: z.enum(FORMATS, { message: 'format must be json or csv' }).default('json'),
});

const dimensionValue = z.union([z.string().max(200), z.number(), z.boolean()]).transform(String);

export const metricPointsBody = z.object({
  seriesKey: z.string().regex(SERIES_KEY, 'seriesKey must be 1-100 letters, digits, underscores, dots or hyphens'),
  label: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().max(2000).optional(),
  format: z.enum(METRIC_FORMATS, { message: `format must be one of ${METRIC_FORMATS.join(', ')}` }).optional(),
  points: z
    .array(
      z.object({
        date: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}/, 'date must be an ISO 8601 date')
          .refine((s) => !Number.isNaN(Date.parse(s.slice(0, 10))), 'date must be a valid date')
          .transform((s) => s.slice(0, 10)),
        value: z.number({ message: 'value must be a number' }).finite(),
        dimensions: z
          .record(z.string().min(1).max(100), dimensionValue)
          .refine((o) => Object.keys(o).length <= 10, 'at most 10 dimensions')
          .optional(),
      }),
    )
    .min(1, 'points must not be empty')
    .max(MAX_POINTS, `at most ${MAX_POINTS} points`),
});
export type MetricPointsBody = z.infer<typeof metricPointsBody>;

export const catalogQuery = z.object({
  category: z.string().trim().max(100).optional(),
  page: z.coerce.number().int().min(1, 'page must be at least 1').default(1),
  limit: z.coerce.number().int().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').default(100),
});

export const MODES = ['flow', 'snapshot'] as const;
export const MEASURE_TYPES = ['count', 'sum', 'average', 'ratio', 'external'] as const;

export const metricCatalogEntryView = z.object({
  key: z.string().describe('built-in key, or external:<seriesKey>'),
  label: z.string(),
  description: z.string(),
  category: z.string(),
  format: z.enum(METRIC_FORMATS),
  mode: z.enum(MODES).describe('flow: counted per window; snapshot: the state now (ignores the window)'),
  measureType: z.enum(MEASURE_TYPES),
  dimensions: z.array(z.object({ key: z.string(), label: z.string() })),
});
export type MetricCatalogEntryView = z.infer<typeof metricCatalogEntryView>;

const seriesView = z
  .array(z.object({ bucket: z.string(), value: z.number().nullable() }))
  .describe('zero-filled buckets (null for averages and rates without data); empty for snapshot metrics');

export const metricResultView = z.object({
  metricKey: z.string(),
  label: z.string(),
  format: z.enum(METRIC_FORMATS),
  mode: z.enum(MODES),
  measureType: z.enum(MEASURE_TYPES),
  granularity: z.enum(GRANULARITIES),
  timezone: z.string(),
  from: dateTimeView,
  to: dateTimeView,
  total: z.number().nullable(),
  series: seriesView,
  dimension: z.string().optional(),
  breakdown: z
    .array(
      z.object({
        dimensionValue: z.string().nullable(),
        dimensionLabel: z.string(),
        total: z.number().nullable(),
        series: seriesView,
      }),
    )
    .optional()
    .describe('with `dimension`: one entry per dimension value, largest total first'),
  compare: z
    .object({
      compareTo: z.enum(COMPARE_TO),
      from: dateTimeView,
      to: dateTimeView,
      total: z.number().nullable(),
      series: seriesView,
    })
    .optional(),
  delta: z.object({ abs: z.number().nullable(), pct: z.number().nullable() }).optional(),
});
export type MetricResultView = z.infer<typeof metricResultView>;

export const metricErrorEntryView = z.object({
  metricKey: z.string(),
  error: z.string(),
  code: z.string().describe('unknown_metric, invalid_query (or another error code)'),
});
export type MetricErrorEntryView = z.infer<typeof metricErrorEntryView>;

export const metricBatchView = z.object({
  results: z.array(z.union([metricResultView, metricErrorEntryView])).describe('in request order'),
});

export const metricPointsResultView = z.object({
  seriesKey: z.string(),
  metricKey: z.string(),
  received: z.number().int(),
  upserted: z.number().int().describe('distinct (day, dimensions) points'),
  inserted: z.number().int(),
  updated: z.number().int(),
});
export type MetricPointsResultView = z.infer<typeof metricPointsResultView>;
