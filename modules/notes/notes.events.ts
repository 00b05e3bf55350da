import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

export const noteEvents = defineEvents({
  note_created: z.object({ note: recordView }),
  note_updated: z.object({ note: recordView, changes: fieldChanges }),
  note_deleted: z.object({ note: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof noteEvents> {}
}
