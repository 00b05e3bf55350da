import { z } from 'zod';
import { defineEvents } from '../../platform/outbox/define-events';

/** A CSV import finished (entity `import`): its counts. */
export const importEvents = defineEvents({
  import_completed: z.object({
    importId: z.string(),
    entityType: z.string(),
    total: z.number(),
    created: z.number(),
    updated: z.number(),
    skipped: z.number(),
    failed: z.number(),
  }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof importEvents> {}
}
