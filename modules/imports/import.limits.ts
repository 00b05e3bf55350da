import type { RowError } from './import-run.entity';

export const MAX_IMPORT_ROWS = 5000;
/** Result of validating one raw row against the create schema (done by the API layer with zod). */
export type ParsedRow<Row> = { ok: true; row: Row } | { ok: false; errors: RowError['errors'] };
