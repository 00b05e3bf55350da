/**
 * The reports module's public surface: what code outside modules/reports may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`) are read by the registries directly; tests and
 * benches may reach inside.
 */
export { isTimeZone, localDay } from './history-days';
