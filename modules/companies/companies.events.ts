import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

/** Company events (the companies service, tag bulk edits, the assign_user action). */
export const companyEvents = defineEvents({
  ...recordEvents('company', z.object({ company: recordView })),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof companyEvents> {}
}
