import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

/** ticketEventPayload: the ticket plus the person, company and owner namespaces automations read. */
const ticket = z.object({
  ticket: recordView,
  person: recordView.optional(),
  company: recordView.optional(),
  owner: recordView.optional(),
});
/** emitTicketChanges: one payload for the update and the status, assignment and stage events it implies. */
const changed = ticket.extend({
  changes: fieldChanges,
  fromStageId: z.number().nullable().optional(),
  toStageId: z.number().optional(),
});

/** Support tickets, their replies and time entries, and the support flow. */
export const supportEvents = defineEvents({
  support_ticket_created: ticket,
  support_ticket_updated: changed,
  support_ticket_resolved: changed,
  support_ticket_closed: changed,
  support_ticket_reopened: changed,
  support_ticket_assigned: changed,
  support_ticket_stage_changed: changed,
  support_ticket_replied: ticket.extend({ message: recordView }),
  support_ticket_deleted: z.object({ ticket: recordView }),
  support_time_entry_created: z.object({ timeEntry: recordView, ticketId: z.string() }),
  support_flow_updated: z.object({ flow: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof supportEvents> {}
}
