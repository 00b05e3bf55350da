import type { RouteFactory } from '../app';
import { bookingSideDeps } from '../../domain/bookings/approval.service';
import { cancelBody, publicIdParams, publicSlotsQuery, rescheduleBody } from '../../domain/bookings/bookings.schemas';
import { publicCancel, publicReschedule, publicSlots, publicView } from '../../domain/bookings/public.service';
import { API_START_DEADLINE_MS, createWorkflowPort } from '../../temporal/workflow-client';
import { ok, route } from '../http/registry';

const section = 'Bookings';
const access = {
  public:
    "for attendees, who hold no API key: the booking's unguessable publicId (from the confirmation e-mail) is the capability",
} as const;

export const publicBookingsRoutes: RouteFactory = (deps) => {
  const side = bookingSideDeps({
    workflows: createWorkflowPort(deps.temporal, deps.config.temporalTaskQueue, {
      startDeadlineMs: API_START_DEADLINE_MS,
    }),
    log: deps.log.child({ component: 'bookings' }),
    timeScale: deps.config.bookingTimeScale,
  });
  return [
    route({
      method: 'GET',
      path: '/api/v1/public/bookings/:publicId',
      section,
      access,
      params: publicIdParams,
      summary:
        "The attendee's view of a booking: status, times, meeting type, host, booking page, canCancel, canReschedule. Unknown publicId → 404.",
      handler: async ({ params }) => ok(await publicView(deps.orm, params.publicId)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/public/bookings/:publicId/available-slots',
      section,
      access,
      params: publicIdParams,
      query: publicSlotsQuery,
      summary:
        'Free slots to move this booking to (startDate, endDate YYYY-MM-DD, at most 62 days; its own slot counts as free). Times only, no agent ids.',
      handler: async ({ params, query }) => ok(await publicSlots(deps.orm, params.publicId, query)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/public/bookings/:publicId/cancel',
      section,
      access,
      params: publicIdParams,
      body: cancelBody,
      summary:
        'The attendee cancels (reason optional). 409 when online changes are off (publicBookingEnabled false), the booking no longer holds a slot, or the start is within minimumNoticeMinutes.',
      handler: async ({ params, body }) => ok(await publicCancel(deps.orm, params.publicId, body.reason, side)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/public/bookings/:publicId/reschedule',
      section,
      access,
      params: publicIdParams,
      body: rescheduleBody,
      summary:
        'The attendee moves the booking to newSlotStart (required; a slot of the public available-slots) under the same rules as cancel; 409 when the slot is taken.',
      handler: async ({ params, body }) => ok(await publicReschedule(deps.orm, params.publicId, body.newSlotStart)),
    }),
  ];
};
