import { z } from 'zod';
import { defineEvents, recordView } from '../../platform/outbox/define-events';

/**
 * An automation was created, updated, toggled, duplicated (with `sourceAutomationId`), deleted,
 * or deactivated by the engine (then `automation` holds only `_id`, `isActive`, `deactivatedReason`).
 */
export const automationEvents = defineEvents({
  automation_changed: z.object({
    automation: recordView,
    action: z.enum(['created', 'updated', 'toggled', 'duplicated', 'deleted', 'deactivated']),
    sourceAutomationId: z.string().optional(),
  }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof automationEvents> {}
}
