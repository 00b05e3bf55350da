/**
 * The imports module's public surface: what code outside modules/imports may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.events.ts`) are read by the registries directly;
 * tests and benches may reach inside.
 */
export { ImportRun } from './import-run.entity';
export { MAX_IMPORT_ROWS, runImport } from './import.service';
export type { Importer } from './importers';
export { customObjectImportBody } from './import.schemas';
