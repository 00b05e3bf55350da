/**
 * Creating a booking: the slot check, the atomic hold (one transaction per agent tried, the agent's advisory lock
 * first, see availability.ts lockAgents), the CRM records (person, lead, calendar event), the events, and the approval
 * workflow's start for a booking that needs one. Split from bookings.service.ts (list, get, cancel, reschedule).
 * A request that loses a race for its slot never uses the ORM: its config and the agents' load are one statement,
 * the probe, the wait and the overlap check one statement each on the pool (availability.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../platform/context';
import { CalendarEvent, serializeEvent } from '../calendar';
import { DomainError, validation } from '../../platform/errors';
import { createLead } from '../leads';
import { emit } from '../../platform/outbox/emit';
import { createdEvent } from '../../platform/shared/changes';
import { createPerson, Person } from '../people';
import { likePattern } from '../../platform/shared/listing';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { raw } from '@mikro-orm/core';
import { agentIdle, dayCount, holdTaken, isHoldConflict, lockAgents, tryLockAgent, waitForAgent } from './agent-locks';
import { freeAgentsAt, loadBookingTarget, meetingTypeOf, slotTaken } from './availability';
import { Booking, type BookingConfig, type BookingStatus, type MeetingType } from './booking.entity';
import type { CreateBookingInput } from './bookings.schemas';
import { holdOf, rankAgents } from './slots';
import { bookingEventPayload, type BookingSideDeps } from './bookings.service';

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

/**
 * One attempt for one agent, in one transaction under the agent's lock: a hold conflict rolls back the CRM records
 * too. A hold already taken (by a writer that held the lock before) is a 409 before anything is built. Unless `queue`,
 * null (nothing written) when another transaction holds the lock now: the caller waits for it with the others.
 */
async function insertFor(
  ctx: Ctx,
  config: BookingConfig,
  mt: MeetingType,
  input: CreateBookingInput,
  agentId: string,
  localDate: string,
  opts: CreateOptions & { queue: boolean },
): Promise<Booking | null> {
  const start = input.slotStart;
  const hold = holdOf(start.getTime(), mt.durationMinutes, config.bufferBeforeMinutes, config.bufferAfterMinutes);
  return inTransaction(ctx, async () => {
    if (opts.queue) await lockAgents(ctx.em, ctx.actor.workspaceId, [agentId]);
    else if (!(await tryLockAgent(ctx.em, ctx.actor.workspaceId, agentId))) return null;
    if (await holdTaken(ctx.em, ctx.actor.workspaceId, agentId, hold)) throw slotTaken();
    if (
      config.maxPerDay != null &&
      (await dayCount(ctx.em, ctx.actor.workspaceId, agentId, config.timeZone, localDate)) >= config.maxPerDay
    )
      throw slotTaken();
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
    emit(ctx, { ...createdEvent('event', { event: serializeEvent(event) }), entityId: event._id });
    if (status === 'pending') {
      booking.approvalDeadlineAt = new Date(
        (opts.now ?? new Date()).getTime() + config.approvalDeadlineHours * 3_600_000,
      );
    }
    emit(ctx, {
      ...createdEvent('booking', bookingEventPayload(booking, { source: opts.source })),
      entityId: booking._id,
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
  const ws = ctx.actor.workspaceId;
  // The config and its agents' load in one statement (the route declares no reference check for configId: this is it).
  const target = await loadBookingTarget(ctx, input.configId, input.slotStart, input.selectedAgentId);
  if (!target) {
    const error = `no booking config with id ${input.configId} in this workspace`;
    throw validation(`configId: ${error}`, [{ path: 'configId', error }]);
  }
  const { config, loads, localDate } = target;
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
  const free = freeAgentsAt(
    config,
    mt,
    input.slotStart,
    loads,
    { agentIds: input.selectedAgentId ? [input.selectedAgentId] : undefined, field: 'slotStart', localDate },
    opts.now,
  );
  const hold = holdOf(
    input.slotStart.getTime(),
    mt.durationMinutes,
    config.bufferBeforeMinutes,
    config.bufferAfterMinutes,
  );
  // Another request writes the agent's holds now (in a race for one slot: the winner). Nobody queues behind it: all
  // wait for its commit together, then one overlap query says whether it took this hold (the usual answer: 409).
  const waitAndLook = async (agentId: string): Promise<boolean> => {
    await waitForAgent(ctx, ws, agentId);
    return !(await holdTaken(ctx, ws, agentId, hold));
  };
  /** The booking with this agent, or null when the agent's hold is taken. */
  const bookAgent = async (agentId: string): Promise<Booking | null> => {
    // The probe is one statement outside any transaction; after a wait the request queues (nobody starves).
    let queue = !(await agentIdle(ctx, ws, agentId));
    if (queue && !(await waitAndLook(agentId))) return null;
    for (;;) {
      try {
        // No deadlock to retry: every write of a hold takes the agent's lock first (availability.ts lockAgents).
        const booking = await insertFor(ctx, config, mt, input, agentId, free.localDate, { ...opts, queue });
        if (booking) return booking;
      } catch (err) {
        // Another request took this agent's slot between the check and the insert (or its day is full).
        if (!isHoldConflict(err) && !(err instanceof DomainError && err.code === 'conflict')) throw err;
        ctx.em.clear();
        return null;
      }
      // Busy since the probe: wait as above, then queue.
      if (!(await waitAndLook(agentId))) return null;
      queue = true;
    }
  };
  for (const agentId of rankAgents(free.agentIds, free.perDay)) {
    const booking = await bookAgent(agentId);
    if (!booking) continue;
    if (booking.status === 'pending') await deps.startApproval(ctx, booking, config);
    return booking;
  }
  throw slotTaken();
}
