import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

/** Calendar events (entity `event`): the calendar service, bookings and calendar invites. */
export const calendarEvents = defineEvents({
  ...recordEvents('event', z.object({ event: recordView })),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof calendarEvents> {}
}
