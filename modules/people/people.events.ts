import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

/** Person events (the people service, tag bulk edits, the assign_user action). */
export const personEvents = defineEvents({
  ...recordEvents('person', z.object({ person: recordView })),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof personEvents> {}
}
