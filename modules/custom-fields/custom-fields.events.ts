import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

const field = z.object({ customField: recordView });

/** Custom field definitions. */
export const customFieldEvents = defineEvents({
  custom_field_created: field,
  custom_field_updated: field.extend({ changes: fieldChanges }),
  custom_field_deleted: field,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof customFieldEvents> {}
}
