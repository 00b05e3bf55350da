import { z } from 'zod';
import { changedKeys, defineEvents, recordLinks, recordView } from '../../domain/outbox/define-events';

/** bookingEventPayload: the booking (with `bookingConfigId`), the attendee, the records it links. */
const booking = z.object({
  booking: recordView,
  person: z.looseObject({ _id: z.string().optional(), name: z.string(), email: z.string() }),
  links: recordLinks,
});
const decided = booking.extend({
  decidedBy: z.enum(['deadline', 'user']),
  notes: z.string().optional(),
  reason: z.string().optional(),
});
const config = z.object({ bookingConfig: recordView });

/** Bookings (created, approved or rejected, cancelled, rescheduled) and booking configs. */
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
  booking_config_created: config,
  booking_config_updated: config.extend({ changes: changedKeys }),
});
