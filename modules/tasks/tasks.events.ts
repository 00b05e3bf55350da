import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

/** Task events (the tasks service and project tasks). */
export const taskEvents = defineEvents({
  task_created: z.object({ task: recordView }),
  task_updated: z.object({ task: recordView, changes: fieldChanges }),
  task_deleted: z.object({ task: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof taskEvents> {}
}
