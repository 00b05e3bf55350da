/** One metric's aggregate over a window: the total, its buckets and (with a dimension) one entry per value. */
export interface Aggregated {
  total: number | null;
  series: { bucket: string; value: number | null }[];
  breakdown?: {
    dimensionValue: string | null;
    dimensionLabel: string;
    total: number | null;
    series: { bucket: string; value: number | null }[];
  }[];
}

/** CSV rows (spec columns) of one or more query results; failed batch entries are skipped. */
export function csvRows(results: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const r of results) {
    if ('error' in r) continue;
    const base = { metricKey: r.metricKey, label: r.label, granularity: r.granularity, format: r.format };
    const push = (
      period: string,
      series: { bucket: string; value: number | null }[],
      dim?: { dimensionValue: string | null; dimensionLabel: string },
    ) => {
      for (const s of series) {
        out.push({
          ...base,
          period,
          bucket: s.bucket,
          dimension: dim ? r.dimension : '',
          dimensionValue: dim?.dimensionValue ?? '',
          dimensionLabel: dim?.dimensionLabel ?? '',
          value: s.value ?? '',
        });
      }
    };
    const series =
      r.mode === 'snapshot'
        ? [{ bucket: 'now', value: r.total as number | null }]
        : (r.series as { bucket: string; value: number | null }[]);
    push('current', series);
    for (const b of (r.breakdown as Aggregated['breakdown']) ?? [])
      push('current', r.mode === 'snapshot' ? [{ bucket: 'now', value: b.total }] : b.series, b);
    const compare = r.compare as { series: { bucket: string; value: number | null }[] } | undefined;
    if (compare) push('compare', compare.series);
  }
  return out;
}

export const CSV_COLUMNS = [
  'metricKey',
  'label',
  'granularity',
  'period',
  'bucket',
  'dimension',
  'dimensionValue',
  'dimensionLabel',
  'value',
  'format',
];
