/**
 * Bookings: create (slot check, atomic hold, CRM records, calendar event, events), list, get,
 * cancel and reschedule. The hold is a Postgres exclusion constraint on the agent's time range
 * (migration ..._bookings): of concurrent inserts for one slot exactly one commits, the others
 * fail with 23P01 and answer 409. Approval decisions live in approval.service.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../domain/context';
import { CalendarEvent } from '../../domain/calendar/calendar-event.entity';
import { serializeEvent } from '../../domain/calendar/calendar-events.service';
import { DomainError, notFound, validation } from '../../domain/errors';
import { createLead } from '../../domain/leads/leads.service';
import { emit } from '../../domain/outbox/emit';
import { createPerson } from '../../domain/people/people.service';
import { Person } from '../../domain/people/person.entity';
import { findPage, likePattern, type PageRequest } from '../../domain/shared/listing';
import { plainOf } from '../../domain/shared/views';
import { createRecord } from '../../domain/shared/records';
import { inTransaction } from '../../domain/shared/tx';
import { isId } from '../../domain/ids';
import { raw } from '@mikro-orm/core';
import {
  freeAgentsFor,
  dayCount,
  isHoldConflict,
  lockAgents,
  meetingTypeOf,
  retryOnDeadlock,
  slotTaken,
  tryLockAgent,
  waitForAgent,
} from './availability';
import { Booking, BookingConfig, HOLDING_STATUSES, type BookingStatus, type MeetingType } from './booking.entity';
import { getConfig } from './booking-configs.service';
import { bookingTransitions } from './bookings.rules';
import type { CreateBookingInput } from './bookings.schemas';
import type { BookingView } from './bookings.views';
import { holdOf, rankAgents } from './slots';

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
}

/** By `_id` or by `publicId` (spec: GET /bookings/:id). */
export async function getBooking(ctx: Ctx, idOrPublicId: string): Promise<Booking> {
  const where = isId(idOrPublicId) ? { _id: idOrPublicId } : { publicId: idOrPublicId };
  const booking = /^[A-Za-z0-9_-]{1,64}$/.test(idOrPublicId) ? await ctx.em.findOne(Booking, where) : null;
  if (!booking) throw notFound('booking');
  return booking;
}

const splitName = (name: string): { firstName: string; lastName: string | null } => {
  const parts = name.trim().split(/\s+/);
  return { firstName: parts[0] ?? name, lastName: parts.length > 1 ? parts.slice(1).join(' ') : null };
};

/** The attendee's person: the newest person with that e-mail, else a new one (when the config says so). */
async function personFor(
  ctx: Ctx,
  config: BookingConfig,
  attendee: CreateBookingInput['attendeeInfo'],
): Promise<string | null> {
  const wanted = attendee.email.toLowerCase();
  const candidates = await ctx.em.find(
    Person,
    { [raw((a: string) => `lower(${a}.emails::text)`) as unknown as string]: { $like: likePattern(`"${wanted}"`) } },
    { orderBy: { createdAt: 'desc' }, limit: 20 },
  );
  const found = candidates.find((p) => p.emails.some((e) => e.email.toLowerCase() === wanted));
  if (found) return found._id;
  if (!config.createPerson) return null;
  const created = await createPerson(
    ctx,
    {
      ...splitName(attendee.name),
      emails: [{ email: wanted, label: 'work' }],
      phones: attendee.phone ? [{ phone: attendee.phone, label: 'mobile' }] : [],
    },
    { preview: false, images: async () => null },
  );
  return (created as { _id: string })._id;
}

function calendarEventFor(ctx: Ctx, config: BookingConfig, mt: MeetingType, b: Booking): CalendarEvent {
  return createRecord(ctx, CalendarEvent, {
    title: `${mt.name} with ${b.attendeeInfo.name}`.slice(0, 500),
    description: [b.attendeeInfo.notes, `Booking ${b.publicId}`].filter(Boolean).join('\n\n'),
    type: 'meeting',
    start: b.startDateTime,
    end: b.endDateTime,
    allDay: false,
    location: config.location,
    attendees: [
      { email: b.attendeeInfo.email, name: b.attendeeInfo.name, status: 'needs_action' },
      ...b.invitedParticipants.map((p) => ({ email: p.email, name: p.name ?? null, status: 'needs_action' as const })),
    ],
    companyId: null,
    personId: b.personId,
    leadId: b.leadId,
    dealId: null,
    ownerId: b.agentId,
    reminderMinutes: null,
  } as CalendarEvent);
}

export interface CreateOptions {
  source: 'api' | 'public';
  now?: Date;
}

/** Rounds of createBooking that wait for a busy agent instead of queueing for it. */
const BUSY_ROUNDS = 3;

/**
 * One attempt for one agent, in one transaction: a hold conflict rolls back the CRM records too. Null (nothing
 * written) when another transaction writes the agent's holds now, unless `wait`.
 */
async function insertFor(
  ctx: Ctx,
  config: BookingConfig,
  mt: MeetingType,
  input: CreateBookingInput,
  agentId: string,
  localDate: string,
  opts: CreateOptions & { wait: boolean },
): Promise<Booking | null> {
  return inTransaction(ctx, async () => {
    if (opts.wait) await lockAgents(ctx.em, ctx.actor.workspaceId, [agentId]);
    else if (!(await tryLockAgent(ctx.em, ctx.actor.workspaceId, agentId))) return null;
    if (
      config.maxPerDay != null &&
      (await dayCount(ctx.em, ctx.actor.workspaceId, agentId, config.timeZone, localDate)) >= config.maxPerDay
    )
      throw slotTaken();
    const start = input.slotStart;
    const hold = holdOf(start.getTime(), mt.durationMinutes, config.bufferBeforeMinutes, config.bufferAfterMinutes);
    const status: BookingStatus = config.requiresApproval ? 'pending' : 'confirmed';
    const booking = createRecord(ctx, Booking, {
      publicId: randomBytes(24).toString('base64url'),
      configId: config._id,
      meetingTypeId: mt.id,
      meetingTypeName: mt.name,
      agentId,
      status,
      startDateTime: start,
      endDateTime: new Date(start.getTime() + mt.durationMinutes * 60_000),
      holdStart: new Date(hold.start),
      holdEnd: new Date(hold.end),
      timeZone: config.timeZone,
      attendeeInfo: {
        name: input.attendeeInfo.name,
        email: input.attendeeInfo.email,
        phone: input.attendeeInfo.phone ?? null,
        notes: input.attendeeInfo.notes ?? null,
      },
      customFieldsData: input.customFieldsData ?? {},
      invitedParticipants: (input.invitedParticipants ?? []).map((p) => ({ email: p.email, name: p.name ?? null })),
      personId: null,
      leadId: null,
      calendarEventId: null,
      source: opts.source,
      approvalDeadlineAt: null,
      approvalWorkflowId: null,
      decidedBy: null,
      decidedAt: null,
      decisionNotes: null,
      rejectionReason: null,
      cancelledAt: null,
      cancelledBy: null,
      cancelReason: null,
      rescheduleCount: 0,
      rescheduleHistory: [],
      createdBy: opts.source === 'api' ? ctx.actor.userId : null,
    } as unknown as Booking);
    // The hold first: a lost race fails here, before any CRM record is written.
    await ctx.em.persist(booking).flush();
    booking.personId = await personFor(ctx, config, input.attendeeInfo);
    if (config.createLead) {
      const lead = await createLead(
        ctx,
        {
          title: `${mt.name}: ${input.attendeeInfo.name}`.slice(0, 300),
          email: input.attendeeInfo.email,
          phone: input.attendeeInfo.phone ?? null,
          source: config.leadSource ?? 'booking',
          personRef: booking.personId,
          ownerId: agentId,
          notes: input.attendeeInfo.notes ?? null,
        },
        { preview: false },
      );
      booking.leadId = (lead as { _id: string })._id;
    }
    const event = calendarEventFor(ctx, config, mt, booking);
    booking.calendarEventId = event._id;
    emit(ctx, {
      type: 'event_created',
      entityType: 'event',
      entityId: event._id,
      payload: { event: serializeEvent(event) },
    });
    if (status === 'pending') {
      booking.approvalDeadlineAt = new Date(
        (opts.now ?? new Date()).getTime() + config.approvalDeadlineHours * 3_600_000,
      );
    }
    emit(ctx, {
      type: 'booking_created',
      entityType: 'booking',
      entityId: booking._id,
      payload: bookingEventPayload(booking, { source: opts.source }),
    });
    return booking;
  });
}

export async function createBooking(
  ctx: Ctx,
  input: CreateBookingInput,
  deps: BookingSideDeps,
  opts: CreateOptions,
): Promise<Booking> {
  const config = await ctx.em.findOne(BookingConfig, { _id: input.configId });
  if (!config)
    throw validation(`configId: no booking config with id ${input.configId}`, [
      { path: 'configId', error: 'unknown booking config' },
    ]);
  if (!config.agents.length)
    throw new DomainError(
      'invalid_state',
      'the booking config has no agents; add agents with PATCH /booking-configs/:id',
    );
  const mt = meetingTypeOf(config, input.meetingTypeId);
  if (input.selectedAgentId && !config.agents.some((a) => a.userId === input.selectedAgentId)) {
    throw validation('selectedAgentId: not an agent of this booking config', [
      { path: 'selectedAgentId', error: 'not an agent of the config' },
    ]);
  }
  const freeNow = () =>
    freeAgentsFor(
      ctx.em,
      ctx.actor.workspaceId,
      config,
      mt,
      input.slotStart,
      { agentIds: input.selectedAgentId ? [input.selectedAgentId] : undefined, field: 'slotStart' },
      opts.now,
    );
  let free = await freeNow();
  for (let round = 1; ; round++) {
    // The first rounds do not queue for an agent another request is writing: they wait until it is done, all together,
    // and look again (the usual answer: the slot is gone, 409). The last round queues, so nobody starves.
    const wait = round >= BUSY_ROUNDS;
    let busy: string | undefined;
    for (const agentId of rankAgents(free.agentIds, free.perDay)) {
      let booking: Booking | null;
      try {
        // A deadlock victim (none expected: every write of a hold takes the agent's lock first) runs again.
        booking = await retryOnDeadlock(
          () => insertFor(ctx, config, mt, input, agentId, free.localDate, { ...opts, wait }),
          () => ctx.em.clear(),
        );
      } catch (err) {
        // Another request took this agent's slot between the check and the insert: try the next free agent.
        if (!isHoldConflict(err) && !(err instanceof DomainError && err.code === 'conflict')) throw err;
        ctx.em.clear();
        continue;
      }
      if (!booking) {
        busy ??= agentId;
        continue;
      }
      if (booking.status === 'pending') await deps.startApproval(ctx, booking, config);
      return booking;
    }
    if (!busy) throw slotTaken();
    await waitForAgent(ctx.em, ctx.actor.workspaceId, busy);
    free = await freeNow();
  }
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

async function removeCalendarEvent(ctx: Ctx, booking: Booking): Promise<void> {
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

/** Moves the hold to a new start under the same checks as create (same agent if free, else another free one). */
export async function rescheduleBooking(
  ctx: Ctx,
  booking: Booking,
  input: { newSlotStart: Date; reason?: string } & ActorKind,
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
        const changed = await ctx.em.nativeUpdate(
          Booking,
          { _id: booking._id, status: booking.status, startDateTime: previous.start, agentId: previous.agentId },
          {
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
