import { z } from 'zod';
import { defineEvents, openObject, recordEvents, recordView } from '../../platform/outbox/define-events';

const rulesChanged = z.object({ action: z.enum(['created', 'updated', 'deleted']), rule: openObject });

/** Lead events, and the routing and scoring rule changes (entity `workspace`). */
export const leadEvents = defineEvents({
  ...recordEvents('lead', z.object({ lead: recordView })),
  lead_routing_rules_changed: rulesChanged,
  /** One per workspace record: the rescore subscriber rescores the workspace's leads. */
  lead_scoring_rules_changed: rulesChanged,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof leadEvents> {}
}
