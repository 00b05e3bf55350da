import type { RouteFactory } from '../../api/app';
import { bookingSideDeps } from './approval.service';
import { cancelBody, publicIdParams, publicSlotsQuery, rescheduleBody } from './bookings.schemas';
import { publicCancel, publicReschedule, publicSlots, publicView } from './public.service';
import { ok } from '../../api/http/registry';
import { envelopes, publicRoute } from '../../api/http/crud';
import { publicBookingView, publicSlotsView } from './bookings.views';

const section = 'Bookings';
const reason =
  "for attendees, who hold no API key: the booking's unguessable publicId (from the confirmation e-mail) is the capability";

export const publicBookingsRoutes: RouteFactory = (deps) => {
  const side = bookingSideDeps({
    workflows: deps.workflows,
    log: deps.log.child({ component: 'bookings' }),
    timeScale: deps.config.bookingTimeScale,
  });
  return [
    publicRoute({
      method: 'GET',
      path: '/api/v1/public/bookings/:publicId',
      section,
      reason,
      params: publicIdParams,
      response: envelopes.data(publicBookingView),
      summary:
        "The attendee's view of a booking: status, times, meeting type, host, booking page, canCancel, canReschedule. Unknown publicId → 404.",
      handler: async ({ params }) => ok(await publicView(deps.orm, params.publicId)),
    }),
    publicRoute({
      method: 'GET',
      path: '/api/v1/public/bookings/:publicId/available-slots',
      section,
      reason,
      params: publicIdParams,
      query: publicSlotsQuery,
      response: envelopes.data(publicSlotsView),
      summary:
        'Free slots to move this booking to (startDate, endDate YYYY-MM-DD, at most 62 days; its own slot counts as free). Times only, no agent ids.',
      handler: async ({ params, query }) => ok(await publicSlots(deps.orm, params.publicId, query)),
    }),
    publicRoute({
      method: 'POST',
      path: '/api/v1/public/bookings/:publicId/cancel',
      section,
      reason,
      params: publicIdParams,
      body: cancelBody,
      response: envelopes.data(publicBookingView),
      summary:
        'The attendee cancels (reason optional). 409 when online changes are off (publicBookingEnabled false), the booking no longer holds a slot, or the start is within minimumNoticeMinutes.',
      handler: async ({ params, body }) => ok(await publicCancel(deps.orm, params.publicId, body.reason, side)),
    }),
    publicRoute({
      method: 'POST',
      path: '/api/v1/public/bookings/:publicId/reschedule',
      section,
      reason,
      params: publicIdParams,
      body: rescheduleBody,
      response: envelopes.data(publicBookingView),
      summary:
        'The attendee moves the booking to newSlotStart (required; a slot of the public available-slots) under the same rules as cancel; 409 when the slot is taken.',
      handler: async ({ params, body }) => ok(await publicReschedule(deps.orm, params.publicId, body.newSlotStart)),
    }),
  ];
};
