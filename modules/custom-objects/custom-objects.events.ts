import { z } from 'zod';
import { defineEvents, openObject, recordEvents, recordView } from '../../platform/outbox/define-events';

const definition = z.object({ customObject: recordView });
const record = z.object({ customObjectId: z.string(), customObjectSlug: z.string(), record: recordView });

/**
 * Custom object definitions (`custom_object_definition_*`) and their records (`custom_object_*`,
 * the automation triggers' names). A definition's `changes` are applyPatch changes or the field
 * added, removed or recomputed (`{ fields: { added: slug } }`).
 */
export const customObjectEvents = defineEvents({
  ...recordEvents('custom_object_definition', definition, openObject),
  ...recordEvents('custom_object', record),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof customObjectEvents> {}
}
