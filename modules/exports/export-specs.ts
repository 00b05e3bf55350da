import { resources } from '../../platform/resources';
import type { ExportSupport } from '../../platform/shared/resource';
import { RECORD_TYPES, type RecordType } from '../../platform/shared/record-kinds';

/** What an export of one record type may select, sort by and filter on (stored fields, API names). */
export interface ExportSpec extends ExportSupport {
  type: RecordType;
}

const exportable = (type: RecordType) => {
  const manifest = resources().find((r) => r.kind === type);
  if (!manifest?.export) throw new Error(`record type ${type} has no export spec in its resource manifest`);
  return { manifest, spec: manifest.export };
};

/** A record of one value per record type, built on first use (the manifests are registered at run time). */
export function perRecordType<T>(build: (type: RecordType) => T): () => Record<RecordType, T> {
  let built: Record<RecordType, T> | undefined;
  return () => (built ??= Object.fromEntries(RECORD_TYPES.map((type) => [type, build(type)])) as Record<RecordType, T>);
}

/** The manifests' export specs of the record types. */
export const exportSpecs = perRecordType((type): ExportSpec => ({ type, ...exportable(type).spec }));

/** `POST /api/v1/export/<collection>` per record type. */
export const exportPaths = perRecordType((type) => exportable(type).manifest.collection);
export const MAX_EXPORT_ROWS = 10_000;
export const DEFAULT_EXPORT_ROWS = 1000;
