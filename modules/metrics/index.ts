/**
 * The metrics module's public surface: what code outside modules/metrics may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`) are read by the registries directly; tests and
 * benches may reach inside.
 */
export { MetricSeries } from './metric-series.entity';
