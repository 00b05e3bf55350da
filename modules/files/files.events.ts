import { z } from 'zod';
import { defineEvents, openObject } from '../../platform/outbox/define-events';

const link = z.object({ file: openObject, entityType: z.string(), entityId: z.string() });

/** Files (uploaded here or from a cloud drive), their links to records, folders, cloud drive syncs. */
export const fileEvents = defineEvents({
  file_uploaded: z.object({ file: openObject }),
  file_deleted: z.object({ file: openObject }),
  file_linked: link,
  file_unlinked: link,
  folder_created: z.object({ folder: openObject }),
  folder_deleted: z.object({ folder: openObject }),
  integration_synced: z.object({
    provider: z.string(),
    fullSync: z.boolean(),
    itemsChecked: z.number(),
    itemsMissing: z.number(),
  }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof fileEvents> {}
}
