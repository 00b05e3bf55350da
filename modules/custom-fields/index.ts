/**
 * The custom-fields module's public surface: what code outside modules/custom-fields may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { assertCustomFieldValues } from './validate-values';
