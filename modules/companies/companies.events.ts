import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

/** Company events (the companies service, tag bulk edits, the assign_user action). */
export const companyEvents = defineEvents({
  company_created: z.object({ company: recordView }),
  company_updated: z.object({ company: recordView, changes: fieldChanges }),
  company_deleted: z.object({ company: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof companyEvents> {}
}
