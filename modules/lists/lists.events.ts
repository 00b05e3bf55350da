import { z } from 'zod';
import { defineEvents, fieldChanges, openObject } from '../../platform/outbox/define-events';

const item = z.object({ listId: z.string(), listName: z.string(), entityType: z.string(), entityId: z.string() });

/** Lists and their members (an item event's entity type is the list's record type). */
export const listEvents = defineEvents({
  list_created: z.object({ list: openObject }),
  list_updated: z.object({ list: openObject, changes: fieldChanges }),
  list_deleted: z.object({ list: openObject }),
  list_item_added: item,
  list_item_removed: item,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof listEvents> {}
}
