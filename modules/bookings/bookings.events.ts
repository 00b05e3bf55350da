import { z } from 'zod';
import { changedKeys, defineEvents, recordLinks, recordView } from '../../platform/outbox/define-events';

/** bookingEventPayload: the booking (with `bookingConfigId`), the attendee, the records it links. */
const booking = z.object({
  booking: recordView,
  person: z.looseObject({ _id: z.string().optional(), name: z.string(), email: z.string() }),
  links: recordLinks,
});
const decided = booking.extend({
  decidedBy: z.enum(['deadline', 'user']),
  /** How a user decided: the API, or the one-click link of an approver e-mail. */
  via: z.enum(['api', 'email_link']).optional(),
  notes: z.string().optional(),
  reason: z.string().optional(),
});
const config = z.object({ bookingConfig: recordView });

/** Bookings (created, approval requested/reminded, approved or rejected, cancelled, rescheduled) and configs. */
export const bookingEvents = defineEvents({
  booking_created: booking.extend({ source: z.enum(['api', 'public']) }),
  booking_approved: decided,
  booking_rejected: decided,
  booking_cancelled: booking.extend({ cancelledBy: z.enum(['user', 'attendee']), reason: z.string().nullable() }),
  booking_rescheduled: booking.extend({
    previous: z.object({ startDateTime: z.string(), endDateTime: z.string(), agentId: z.string().nullable() }),
    rescheduledBy: z.enum(['user', 'attendee']),
    reason: z.string().nullable(),
  }),
  /** The approvers are asked (the booking became pending, or a reschedule restarted its deadline). */
  booking_approval_requested: booking.extend({
    approvalDeadlineAt: z.string(),
    reason: z.enum(['created', 'rescheduled']),
    generation: z.number().int(),
  }),
  /** A reminder to the approvers, `reminderHours` before the approval deadline. */
  booking_approval_reminder: booking.extend({
    approvalDeadlineAt: z.string(),
    reminderHours: z.number().int(),
    generation: z.number().int(),
  }),
  booking_config_created: config,
  booking_config_updated: config.extend({ changes: changedKeys }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof bookingEvents> {}
}
