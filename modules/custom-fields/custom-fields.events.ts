import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

const field = z.object({ customField: recordView });

/** Custom field definitions. */
export const customFieldEvents = defineEvents({
  ...recordEvents('custom_field', field),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof customFieldEvents> {}
}
