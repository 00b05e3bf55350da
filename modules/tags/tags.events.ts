import { z } from 'zod';
import { defineEvents } from '../../platform/outbox/define-events';

const tagChange = z.object({ entityType: z.string(), entityId: z.string(), tag: z.string() });

/** One per tag that appeared on or disappeared from a record (emitTagChanges). */
export const tagEvents = defineEvents({
  tag_added: tagChange,
  tag_removed: tagChange,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof tagEvents> {}
}
