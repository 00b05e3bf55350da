/**
 * Bookings: list, get, cancel and reschedule (creating one: booking-create.service.ts). The hold is a Postgres
 * exclusion constraint on the agent's time range (migration ..._bookings): of concurrent inserts for one slot
 * exactly one commits, the others fail with 23P01 and answer 409. Approval decisions live in approval.service.ts.
 */
import type { Ctx } from '../../platform/context';
import { CalendarEvent, serializeEvent } from '../calendar';
import { DomainError, notFound, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { inTransaction } from '../../platform/shared/tx';
import { isId } from '../../platform/ids';
import { dayCount, isHoldConflict, lockAgents } from './agent-locks';
import { freeAgentsFor, meetingTypeOf, slotTaken } from './availability';
import { Booking, BookingConfig, HOLDING_STATUSES, type BookingStatus } from './booking.entity';
import { getConfig } from './booking-configs.service';
import { bookingTransitions } from './bookings.rules';
import type { BookingView } from './bookings.views';
import { holdOf, rankAgents } from './slots';
import type { DeadlineMove } from './booking-approval.messages';

export const BOOKING_FIELDS = [
  '_id',
  'publicId',
  'configId',
  'meetingTypeId',
  'meetingTypeName',
  'agentId',
  'status',
  'startDateTime',
  'endDateTime',
  'timeZone',
  'attendeeInfo',
  'customFieldsData',
  'invitedParticipants',
  'personId',
  'leadId',
  'calendarEventId',
  'source',
  'approvalDeadlineAt',
  'approvalWorkflowId',
  'decidedBy',
  'decidedAt',
  'decisionNotes',
  'rejectionReason',
  'cancelledAt',
  'cancelledBy',
  'cancelReason',
  'rescheduleCount',
  'rescheduleHistory',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;

export const serializeBooking = (b: Booking): BookingView => plainOf(b, BOOKING_FIELDS);

/** The outbox payload: `booking` (with bookingConfigId for trigger filters), `person`, `links` (sequence exits). */
export function bookingEventPayload<E extends Record<string, unknown>>(b: Booking, extra: E) {
  return {
    booking: { ...serializeBooking(b), bookingConfigId: b.configId },
    person: b.personId
      ? { _id: b.personId, name: b.attendeeInfo.name, email: b.attendeeInfo.email }
      : { name: b.attendeeInfo.name, email: b.attendeeInfo.email },
    links: { personId: b.personId ?? undefined, leadId: b.leadId ?? undefined },
    ...extra,
  };
}

export interface BookingSideDeps {
  /** Starts the approval workflow of a pending booking (after commit); throws when it cannot. */
  startApproval(ctx: Ctx, booking: Booking, config: BookingConfig): Promise<void>;
  /** Tells a running approval workflow the booking left pending outside it (cancel). */
  closeApproval(workflowId: string): Promise<void>;
  /** The approval deadline of a pending booking (re)started at `from`. */
  approvalDeadlineFrom(config: BookingConfig, from: Date): Date;
  /** Tells a running approval workflow a reschedule restarted the deadline (after commit). */
  moveApproval(workflowId: string, move: DeadlineMove): Promise<void>;
}

/** By `_id` or by `publicId` (spec: GET /bookings/:id). */
export async function getBooking(ctx: Ctx, idOrPublicId: string): Promise<Booking> {
  const where = isId(idOrPublicId) ? { _id: idOrPublicId } : { publicId: idOrPublicId };
  const booking = /^[A-Za-z0-9_-]{1,64}$/.test(idOrPublicId) ? await ctx.em.findOne(Booking, where) : null;
  if (!booking) throw notFound('booking');
  return booking;
}

export interface BookingListQuery extends PageRequest {
  status?: BookingStatus[];
  dateFrom?: Date;
  dateTo?: Date;
  startFrom?: Date;
  startTo?: Date;
  sortBy?: 'startDateTime' | 'endDateTime' | 'createdAt' | 'status';
  sortOrder?: 'asc' | 'desc';
  view: 'all' | 'upcoming' | 'past';
  configId?: string;
  agentId?: string;
  personId?: string;
}

const endOfDayIfDate = (d: Date): Date => (d.getTime() % 86_400_000 === 0 ? new Date(d.getTime() + 86_399_999) : d);

/** view: all (newest first), upcoming (ends now or later; soonest first), past (ended; latest first). */
export async function listBookings(ctx: Ctx, q: BookingListQuery, now = new Date()) {
  const where: Record<string, unknown> = {};
  if (q.status?.length) where.status = { $in: q.status };
  if (q.dateFrom || q.dateTo)
    where.createdAt = {
      ...(q.dateFrom ? { $gte: q.dateFrom } : {}),
      ...(q.dateTo ? { $lte: endOfDayIfDate(q.dateTo) } : {}),
    };
  if (q.startFrom || q.startTo)
    where.startDateTime = {
      ...(q.startFrom ? { $gte: q.startFrom } : {}),
      ...(q.startTo ? { $lte: endOfDayIfDate(q.startTo) } : {}),
    };
  if (q.view === 'upcoming') where.endDateTime = { $gte: now };
  if (q.view === 'past') where.endDateTime = { $lt: now };
  if (q.configId) where.configId = q.configId;
  if (q.agentId) where.agentId = q.agentId;
  if (q.personId) where.personId = q.personId;
  const sortBy = q.sortBy ?? (q.view === 'all' ? 'createdAt' : 'startDateTime');
  const sortOrder = q.sortOrder ?? (q.view === 'upcoming' ? 'asc' : 'desc');
  const { items, total } = await findPage(ctx.em, Booking, where, q, { [sortBy]: sortOrder });
  return { items: items.map(serializeBooking), total };
}

/** Removes a booking's calendar event (cancelled or rejected: the slot is free again) with its event. */
export async function removeCalendarEvent(ctx: Ctx, booking: Booking): Promise<void> {
  if (!booking.calendarEventId) return;
  const event = await ctx.em.findOne(CalendarEvent, { _id: booking.calendarEventId });
  if (!event) return;
  ctx.em.remove(event);
  emit(ctx, {
    type: 'event_deleted',
    entityType: 'event',
    entityId: event._id,
    payload: { event: serializeEvent(event) },
  });
}

export interface ActorKind {
  by: 'user' | 'attendee';
}

/** Cancel frees the slot (status leaves the holding set), removes the calendar event and notifies. */
export async function cancelBooking(
  ctx: Ctx,
  booking: Booking,
  input: { reason?: string } & ActorKind,
  deps: BookingSideDeps,
): Promise<Booking> {
  if (booking.status === 'cancelled')
    throw new DomainError('invalid_state', 'status: the booking is already cancelled', { current: booking.status });
  bookingTransitions.assert(booking.status, 'cancelled');
  const wasPending = booking.status === 'pending';
  const now = new Date();
  await inTransaction(ctx, async () => {
    // The agent's lock before the row, as every write of a hold takes them (availability.ts lockAgents).
    await lockAgents(ctx.em, ctx.actor.workspaceId, [booking.agentId]);
    // Conditional on the status read: a decision racing the cancel either lands first (then this is 409) or not at all.
    const changed = await ctx.em.nativeUpdate(
      Booking,
      { _id: booking._id, status: booking.status },
      {
        status: 'cancelled',
        cancelledAt: now,
        cancelledBy: input.by,
        cancelReason: input.reason ?? null,
        updatedAt: now,
      },
    );
    if (!changed) throw new DomainError('invalid_state', 'status: the booking changed meanwhile; reload it');
    await ctx.em.refresh(booking);
    await removeCalendarEvent(ctx, booking);
    emit(ctx, {
      type: 'booking_cancelled',
      entityType: 'booking',
      entityId: booking._id,
      payload: bookingEventPayload(booking, { cancelledBy: input.by, reason: input.reason ?? null }),
    });
  });
  if (wasPending && booking.approvalWorkflowId) await deps.closeApproval(booking.approvalWorkflowId);
  return booking;
}

/**
 * Moves the hold to a new start under the same checks as create (same agent if free, else another free one). A
 * pending booking stays pending: its approval deadline restarts from now (the run is signalled after commit) and
 * the approvers are asked again (booking_approval_requested, in the same transaction).
 */
export async function rescheduleBooking(
  ctx: Ctx,
  booking: Booking,
  input: { newSlotStart: Date; reason?: string } & ActorKind,
  side: Pick<BookingSideDeps, 'approvalDeadlineFrom' | 'moveApproval'>,
  opts: { now?: Date } = {},
): Promise<Booking> {
  if (!HOLDING_STATUSES.includes(booking.status)) {
    throw new DomainError(
      'invalid_state',
      `status: the booking is ${booking.status}; only pending, approved and confirmed bookings can be rescheduled`,
      { current: booking.status },
    );
  }
  const config = await getConfig(ctx, booking.configId);
  const mt = config.meetingTypes.find((m) => m.id === booking.meetingTypeId) ?? meetingTypeOf(config, null);
  if (input.newSlotStart.getTime() === booking.startDateTime.getTime())
    throw validation('newSlotStart: the booking already starts then', [
      { path: 'newSlotStart', error: 'same as the current start' },
    ]);
  const free = await freeAgentsFor(
    ctx.em,
    ctx.actor.workspaceId,
    config,
    mt,
    input.newSlotStart,
    { excludeBookingId: booking._id, field: 'newSlotStart' },
    opts.now,
  );
  const ranked = free.agentIds.includes(booking.agentId)
    ? [booking.agentId, ...free.agentIds.filter((a) => a !== booking.agentId)]
    : rankAgents(free.agentIds, free.perDay);
  const previous = { start: booking.startDateTime, end: booking.endDateTime, agentId: booking.agentId };
  for (const agentId of ranked) {
    try {
      await inTransaction(ctx, async () => {
        // Both agents' locks (the hold leaves one and joins the other), in lockAgents' one order, before the row.
        await lockAgents(ctx.em, ctx.actor.workspaceId, [previous.agentId, agentId]);
        if (
          config.maxPerDay != null &&
          (await dayCount(ctx.em, ctx.actor.workspaceId, agentId, config.timeZone, free.localDate, booking._id)) >=
            config.maxPerDay
        )
          throw slotTaken();
        const start = input.newSlotStart;
        const hold = holdOf(start.getTime(), mt.durationMinutes, config.bufferBeforeMinutes, config.bufferAfterMinutes);
        const end = new Date(start.getTime() + mt.durationMinutes * 60_000);
        const now = new Date();
        const pending = booking.status === 'pending';
        const changed = await ctx.em.nativeUpdate(
          Booking,
          { _id: booking._id, status: booking.status, startDateTime: previous.start, agentId: previous.agentId },
          {
            ...(pending ? { approvalDeadlineAt: side.approvalDeadlineFrom(config, now) } : {}),
            startDateTime: start,
            endDateTime: end,
            holdStart: new Date(hold.start),
            holdEnd: new Date(hold.end),
            agentId,
            updatedAt: now,
            rescheduleCount: booking.rescheduleCount + 1,
            rescheduleHistory: [
              ...booking.rescheduleHistory,
              { from: previous.start.toISOString(), to: start.toISOString(), at: now.toISOString(), by: input.by },
            ],
          },
        );
        if (!changed) throw new DomainError('invalid_state', 'status: the booking changed meanwhile; reload it');
        await ctx.em.refresh(booking);
        if (booking.calendarEventId) {
          const event = await ctx.em.findOne(CalendarEvent, { _id: booking.calendarEventId });
          if (event) {
            Object.assign(event, { start, end, ownerId: agentId, updatedAt: now });
            emit(ctx, {
              type: 'event_updated',
              entityType: 'event',
              entityId: event._id,
              payload: {
                event: serializeEvent(event),
                changes: { start: { from: previous.start.toISOString(), to: start.toISOString() } },
              },
            });
          }
        }
        emit(ctx, {
          type: 'booking_rescheduled',
          entityType: 'booking',
          entityId: booking._id,
          payload: bookingEventPayload(booking, {
            previous: {
              startDateTime: previous.start.toISOString(),
              endDateTime: previous.end.toISOString(),
              agentId: previous.agentId,
            },
            rescheduledBy: input.by,
            reason: input.reason ?? null,
          }),
        });
        if (pending && booking.approvalDeadlineAt)
          emit(ctx, {
            type: 'booking_approval_requested',
            entityType: 'booking',
            entityId: booking._id,
            payload: bookingEventPayload(booking, {
              approvalDeadlineAt: booking.approvalDeadlineAt.toISOString(),
              reason: 'rescheduled' as const,
              generation: booking.rescheduleCount,
            }),
          });
      });
      if (booking.status === 'pending' && booking.approvalWorkflowId && booking.approvalDeadlineAt)
        await side.moveApproval(booking.approvalWorkflowId, {
          deadlineAt: booking.approvalDeadlineAt.toISOString(),
          generation: booking.rescheduleCount,
        });
      return booking;
    } catch (err) {
      if (!isHoldConflict(err) && !(err instanceof DomainError && err.code === 'conflict')) throw err;
      ctx.em.clear();
      booking = await getBooking(ctx, booking._id);
    }
  }
  throw slotTaken();
}
