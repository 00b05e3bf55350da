import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

/** Task events (the tasks service and project tasks). */
export const taskEvents = defineEvents({
  ...recordEvents('task', z.object({ task: recordView })),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof taskEvents> {}
}
