import { z } from 'zod';
import { defineEvents, fieldChanges, openObject, recordView } from '../../platform/outbox/define-events';

const definition = z.object({ customObject: recordView });
const record = z.object({ customObjectId: z.string(), customObjectSlug: z.string(), record: recordView });

/**
 * Custom object definitions (`custom_object_definition_*`) and their records (`custom_object_*`,
 * the automation triggers' names). A definition's `changes` are applyPatch changes or the field
 * added, removed or recomputed (`{ fields: { added: slug } }`).
 */
export const customObjectEvents = defineEvents({
  custom_object_definition_created: definition,
  custom_object_definition_updated: definition.extend({ changes: openObject }),
  custom_object_definition_deleted: definition,
  custom_object_created: record,
  custom_object_updated: record.extend({ changes: fieldChanges }),
  custom_object_deleted: record,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof customObjectEvents> {}
}
