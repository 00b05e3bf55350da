import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

export const noteEvents = defineEvents({
  ...recordEvents('note', z.object({ note: recordView })),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof noteEvents> {}
}
