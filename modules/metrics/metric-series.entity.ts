import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';
import type { MetricFormat } from './catalog';

/** An external metric series pushed through POST /metrics/points (`external:<seriesKey>` in the catalog). */
export const MetricSeries = defineEntity({
  name: 'MetricSeries',
  tableName: 'metric_series',
  uniques: [{ properties: ['workspaceId', 'seriesKey'] }],
  properties: {
    ...tenantProps,
    seriesKey: p.string().length(100),
    label: p.string().length(200),
    description: p.text().nullable(),
    format: p.string().length(20).$type<MetricFormat>().default('decimal'),
    dimensionKeys: p.array().default([]),
  },
});
export type MetricSeries = InferEntity<typeof MetricSeries>;
