import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

/** Calendar events (entity `event`): the calendar service, bookings and calendar invites. */
export const calendarEvents = defineEvents({
  event_created: z.object({ event: recordView }),
  event_updated: z.object({ event: recordView, changes: fieldChanges }),
  event_deleted: z.object({ event: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof calendarEvents> {}
}
