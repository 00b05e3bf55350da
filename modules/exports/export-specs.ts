import { RESOURCES } from '../../platform/resources';
import type { ExportSupport } from '../../platform/shared/resource';
import { RECORD_TYPES, type RecordType } from '../../platform/shared/record-kinds';

/** What an export of one record type may select, sort by and filter on (stored fields, API names). */
export interface ExportSpec extends ExportSupport {
  type: RecordType;
}

const exportable = (type: RecordType) => {
  const manifest = RESOURCES.find((r) => r.kind === type);
  if (!manifest?.export) throw new Error(`record type ${type} has no export spec in its resource manifest`);
  return { manifest, spec: manifest.export };
};

/** The manifests' export specs of the record types. */
export const EXPORT_SPECS = Object.fromEntries(
  RECORD_TYPES.map((type) => [type, { type, ...exportable(type).spec }]),
) as Record<RecordType, ExportSpec>;

/** `POST /api/v1/export/<collection>` per record type. */
export const EXPORT_PATHS = Object.fromEntries(
  RECORD_TYPES.map((type) => [type, exportable(type).manifest.collection]),
) as Record<RecordType, string>;
export const MAX_EXPORT_ROWS = 10_000;
export const DEFAULT_EXPORT_ROWS = 1000;
