import { z } from 'zod';
import { defineEvents, openObject, recordEvents } from '../../platform/outbox/define-events';

const item = z.object({ listId: z.string(), listName: z.string(), entityType: z.string(), entityId: z.string() });

/** Lists and their members (an item event's entity type is the list's record type). */
export const listEvents = defineEvents({
  ...recordEvents('list', z.object({ list: openObject })),
  list_item_added: item,
  list_item_removed: item,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof listEvents> {}
}
