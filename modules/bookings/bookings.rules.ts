import { defineTransitions } from '../../platform/shared/transitions';
import { BOOKING_STATUSES } from './booking.entity';

/**
 * Booking status. Without approval a booking is `confirmed` at once; with approval it is `pending`
 * until an approver (or the deadline) decides. pending, approved and confirmed hold the slot.
 */
export const bookingTransitions = defineTransitions({
  resource: 'booking',
  field: 'status',
  states: BOOKING_STATUSES,
  transitions: {
    pending: ['approved', 'rejected', 'cancelled'],
    approved: ['cancelled'],
    confirmed: ['cancelled'],
    rejected: [],
    cancelled: [],
  },
  notes: [
    'reschedule keeps the status and moves the hold; only pending, approved and confirmed bookings can be rescheduled',
    'a pending booking nobody decides on before approvalDeadlineHours becomes rejected or approved per the config (onApprovalTimeout)',
  ],
});
