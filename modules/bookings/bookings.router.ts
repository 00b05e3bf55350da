import type { RouteFactory } from '../../platform/http/app-deps';
import { bookingSideDeps, decideThroughWorkflow, type ApprovalDeps } from './approval.service';
import { availableSlots } from './availability';
import * as configs from './booking-configs.service';
import * as bookings from './bookings.service';
import { createBooking } from './booking-create.service';
import { bookingTransitions } from './bookings.rules';
import {
  approveBody,
  availableSlotsQuery,
  bookingRefParams,
  cancelBody,
  configPageQuery,
  createBookingBody,
  createBookingConfigBody,
  listBookingsQuery,
  rejectBody,
  rescheduleBody,
  updateBookingConfigBody,
} from './bookings.schemas';
import { ENGINE_UNCONFIRMED_NOTE, engineCommandId } from '../../platform/http/idempotency';
import { created, ok, paged, pageOf, route, type RouteDef } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { availableSlotsView, bookingConfigView, bookingView, type AvailableSlotsView } from './bookings.views';
import { BOOKING_VIEWS } from './bookings.schemas';
import { z } from 'zod';
import type { Context } from 'koa';
import type { Ctx } from '../../platform/context';
import type { Booking } from './booking.entity';
import { idParams } from '../../platform/shared/schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const admin = { scopes: ['admin'], roles: ['owner', 'admin'] } as const;
const section = 'Bookings';
const resources = { id: 'booking' };
const configResources = { id: 'booking-config' };
const transitions = [bookingTransitions];

// Literal paths (available-slots) come before /bookings/:id (the router takes the first match).
export const bookingsRoutes: RouteFactory = (deps) => {
  const approval: ApprovalDeps = {
    workflows: deps.workflows,
    log: deps.log.child({ component: 'bookings' }),
    timeScale: deps.config.bookingTimeScale,
  };
  const side = bookingSideDeps(approval);
  /** Approve or reject through the approval workflow; a retry with the same Idempotency-Key is the same command. */
  const decide = (
    { ctx, id, koa }: { ctx: Ctx; id: string; koa: Context },
    decision: 'approve' | 'reject',
    input: { notes?: string; reason?: string },
  ) =>
    decideThroughWorkflow(
      ctx,
      id,
      decision,
      { ...input, commandId: engineCommandId(koa, ctx.actor.workspaceId) },
      approval,
    );
  /** POST /bookings/:id/<action>: `act` changes the booking and gives it back; the route answers it. */
  const bookingAction = <B extends z.ZodType>(
    action: string,
    body: B,
    summary: string,
    act: (input: { ctx: Ctx; id: string; body: z.infer<B>; koa: Context }) => Promise<Booking>,
  ): RouteDef =>
    route({
      method: 'POST',
      path: `/api/v1/bookings/:id/${action}`,
      section,
      access: write,
      params: idParams,
      body,
      resources,
      response: envelopes.data(bookingView),
      transitions,
      summary,
      handler: async ({ ctx, params, body, koa }) =>
        ok(bookings.serializeBooking(await act({ ctx, id: params.id, body, koa }))),
    });
  return [
    route({
      method: 'GET',
      path: '/api/v1/booking-configs',
      section,
      access: read,
      query: configPageQuery,
      response: envelopes.list(bookingConfigView),
      summary:
        "Booking configs (oldest first). The first call creates the workspace's default config (owners as agents, Mon-Fri 09:00-17:00 Europe/Copenhagen, one 30-minute meeting type, 60 minutes notice).",
      handler: async ({ ctx, query }) => pageOf(await configs.listConfigs(ctx, query), query),
    }),
    route({
      method: 'POST',
      path: '/api/v1/booking-configs',
      section,
      access: admin,
      body: createBookingConfigBody,
      successStatus: 201,
      response: envelopes.data(bookingConfigView),
      summary:
        'Create another booking config (beyond the spec; admin scope and owner/admin role). name and timeZone (IANA) required; other fields as PATCH.',
      handler: async ({ ctx, body }) => created(await configs.createConfig(ctx, body)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/booking-configs/:id',
      section,
      access: read,
      params: idParams,
      resources: configResources,
      summary: 'One booking config.',
      response: envelopes.data(bookingConfigView),
      handler: async ({ ctx, params }) => ok(configs.serializeConfig(await configs.getConfig(ctx, params.id))),
    }),
    route({
      method: 'PATCH',
      path: '/api/v1/booking-configs/:id',
      section,
      access: admin,
      params: idParams,
      body: updateBookingConfigBody,
      resources: configResources,
      response: envelopes.data(bookingConfigView),
      summary:
        'Update a booking config (admin scope; partial; agents, meetingTypes and approvers are replaced whole). Fields: name, description, timeZone (IANA), location, agents [{ userId, weeklyAvailability: { mon: [{ start: "09:00", end: "17:00" }], … } }], meetingTypes [{ id, name, durationMinutes }], bufferBeforeMinutes, bufferAfterMinutes, minimumNoticeMinutes, maxPerDay, slotIntervalMinutes, requiresApproval, approvalDeadlineHours, approvalReminderHours, onApprovalTimeout (reject, approve), approvers (user ids; empty = owners and admins), createPerson, createLead, leadSource, publicBookingEnabled.',
      handler: async ({ ctx, params, body }) => ok(await configs.updateConfig(ctx, params.id, body)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/bookings/available-slots',
      section,
      access: read,
      query: availableSlotsQuery,
      response: envelopes.data(availableSlotsView),
      summary:
        "Free slots of a config between two local dates (configId, startDate, endDate required, YYYY-MM-DD in the config's time zone, at most 62 days; meetingTypeId default the first; agentId optional). Availability minus holding bookings (with buffers), the agents' calendar events, minimum notice and maxPerDay; DST-correct. { data: { configId, timeZone, meetingType, slots: [{ start, end, localDate, localTime, agentIds }] } }.",
      handler: async ({ ctx, query }) => {
        const config = await configs.getConfig(ctx, query.configId);
        const { meetingType, slots } = await availableSlots(ctx.em, ctx.actor.workspaceId, config, {
          startDate: query.startDate,
          endDate: query.endDate,
          meetingTypeId: query.meetingTypeId,
          agentId: query.agentId,
        });
        const view: AvailableSlotsView = {
          configId: config._id,
          timeZone: config.timeZone,
          meetingType,
          startDate: query.startDate,
          endDate: query.endDate,
          slots,
        };
        return ok(view);
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/bookings',
      section,
      access: read,
      query: listBookingsQuery,
      response: envelopes.list(bookingView).extend({ view: z.enum(BOOKING_VIEWS) }),
      summary:
        'Bookings. Filters: status (comma list), dateFrom/dateTo (createdAt), startFrom/startTo (startDateTime), configId, agentId, personId; sortBy startDateTime, endDateTime, createdAt, status; sortOrder asc|desc; view all (default, newest first), upcoming (not yet ended, soonest first), past (ended, latest first).',
      handler: async ({ ctx, query }) => {
        const { items, total } = await bookings.listBookings(ctx, query);
        return paged(items, { page: query.page, limit: query.limit, total, view: query.view });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/bookings',
      section,
      access: write,
      body: createBookingBody,
      successStatus: 201,
      response: envelopes.data(bookingView),
      errors: [502],
      transitions,
      summary:
        "Book a slot: configId, slotStart (ISO with offset; a slot of available-slots), attendeeInfo { name, email, phone?, notes? } required; meetingTypeId, selectedAgentId, customFieldsData, invitedParticipants optional. Holds the slot atomically (409 code slot_unavailable when taken; 400 when slotStart is no slot of the config), then person (found by e-mail or created), lead (createLead), calendar event, booking_created (automations, webhooks booking.created, sequence exit meeting_booked) and the attendee's confirmation e-mail with an iCalendar invite. With requiresApproval the booking is pending and its approval workflow starts.",
      handler: async ({ ctx, body }) =>
        created(bookings.serializeBooking(await createBooking(ctx, body, side, { source: 'api' }))),
    }),
    route({
      method: 'GET',
      path: '/api/v1/bookings/:id',
      section,
      access: read,
      params: bookingRefParams,
      resources,
      summary: 'One booking, by _id or publicId.',
      response: envelopes.data(bookingView),
      handler: async ({ ctx, params }) => ok(bookings.serializeBooking(await bookings.getBooking(ctx, params.id))),
    }),
    bookingAction(
      'cancel',
      cancelBody,
      'Cancel (optional reason): frees the slot, removes the calendar event, ends a pending approval, e-mails the attendee a cancellation (iCalendar CANCEL). 409 when already cancelled or rejected.',
      async ({ ctx, id, body }) =>
        bookings.cancelBooking(ctx, await bookings.getBooking(ctx, id), { reason: body.reason, by: 'user' }, side),
    ),
    bookingAction(
      'approve',
      approveBody,
      `Approve a pending booking (notes optional) through its approval workflow (a Temporal update; answers when decided). 409 unless pending. ${ENGINE_UNCONFIRMED_NOTE}`,
      ({ ctx, id, body, koa }) => decide({ ctx, id, koa }, 'approve', { notes: body.notes }),
    ),
    bookingAction(
      'reject',
      rejectBody,
      `Reject a pending booking (reason optional) through its approval workflow; frees the slot and tells the attendee. 409 unless pending. ${ENGINE_UNCONFIRMED_NOTE}`,
      ({ ctx, id, body, koa }) => decide({ ctx, id, koa }, 'reject', { reason: body.reason }),
    ),
    bookingAction(
      'reschedule',
      rescheduleBody,
      'Move the booking to newSlotStart (required) under the same checks as create (same agent when free); the old slot is freed in the same transaction. 409 when taken or the booking is cancelled/rejected.',
      async ({ ctx, id, body }) =>
        bookings.rescheduleBooking(
          ctx,
          await bookings.getBooking(ctx, id),
          { newSlotStart: body.newSlotStart, reason: body.reason, by: 'user' },
          side,
        ),
    ),
  ];
};
