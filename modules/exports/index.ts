/**
 * The exports module's public surface: what code outside modules/exports may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`) are read by the registries directly; tests and
 * benches may reach inside.
 */
export { DEFAULT_EXPORT_ROWS, MAX_EXPORT_ROWS } from './export-specs';
export { customObjectExportBody, customObjectExportQuery } from './export.schemas';
