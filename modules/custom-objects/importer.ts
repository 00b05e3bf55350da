import type { ImageResolver } from '../companies';
import type { Importer } from '../imports';
import { createRecordOf, previewRecordOf } from './records.service';

/**
 * Records of one custom object: each row is validated like POST /custom-objects/:slug/records
 * (flattened or `{ data }` / `{ customFields }` wrapped). No natural key: every valid row is a new
 * record; a value taken in a unique field fails that row (409 message in the report).
 */
export function customObjectImporter(slug: string, images: ImageResolver): Importer<Record<string, unknown>> {
  return {
    entityType: 'custom_object',
    dedupeKey: null,
    batchKeys: () => [],
    findExisting: async () => null,
    create: (ctx, row, preview) => (preview ? previewRecordOf(ctx, slug, row) : createRecordOf(ctx, slug, row, images)),
    update: () => Promise.reject(new Error('custom object imports never update')),
  };
}
