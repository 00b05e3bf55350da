import { z } from 'zod';
import { defineEvents, recordView } from '../../platform/outbox/define-events';

/** A timeline entry (activity) written by hand, by inbound mail or SMS, or by an outbound claim. */
export const timelineEvents = defineEvents({
  activity_created: z.object({ activity: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof timelineEvents> {}
}
