/**
 * The attendee's side, without an API key: the booking's unguessable publicId (192 random bits,
 * in the e-mails) is the capability. View, free slots for a reschedule, cancel and reschedule
 * within the config's rules: self-service must be enabled (publicBookingEnabled) and the current
 * start must be at least minimumNoticeMinutes away.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { User } from '../workspaces';
import { availableSlots } from './availability';
import { Booking, BookingConfig, HOLDING_STATUSES } from './booking.entity';
import { cancelBooking, rescheduleBooking, type BookingSideDeps } from './bookings.service';
import { isLocalDate } from './slots';
import type { PublicBookingView, PublicSlotsView } from './bookings.views';

interface Loaded {
  ctx: Ctx;
  booking: Booking;
  config: BookingConfig;
}

async function load(orm: MikroORM, publicId: string): Promise<Loaded> {
  // Found across workspaces by its capability, then handled with a fork bound to its workspace.
  const found = await orm.em
    .fork()
    .findOne(Booking, { publicId }, { filters: false, fields: ['_id', 'workspaceId', 'agentId'] });
  if (!found) throw notFound('booking');
  const em = forkForWorkspace(orm.em, found.workspaceId);
  const booking = await em.findOneOrFail(Booking, { _id: found._id });
  const config = await em.findOne(BookingConfig, { _id: booking.configId });
  if (!config) throw notFound('booking');
  return {
    ctx: { em, actor: { workspaceId: found.workspaceId, userId: booking.agentId, role: 'member', scopes: [] } },
    booking,
    config,
  };
}

function selfService(l: Loaded, now: Date): { canCancel: boolean; canReschedule: boolean; why: string | null } {
  const holding = HOLDING_STATUSES.includes(l.booking.status);
  const early = l.booking.startDateTime.getTime() - now.getTime() >= l.config.minimumNoticeMinutes * 60_000;
  const why = !l.config.publicBookingEnabled
    ? 'online changes are turned off for this booking page; contact the organizer'
    : !holding
      ? `the booking is ${l.booking.status}`
      : !early
        ? `changes must be made at least ${l.config.minimumNoticeMinutes} minutes before the start`
        : null;
  return { canCancel: why === null, canReschedule: why === null, why };
}

export async function publicView(orm: MikroORM, publicId: string, now = new Date()): Promise<PublicBookingView> {
  const l = await load(orm, publicId);
  const b = l.booking;
  const agent = await l.ctx.em.findOne(User, { _id: b.agentId }, { fields: ['firstName', 'lastName'] });
  const rules = selfService(l, now);
  return {
    publicId: b.publicId,
    status: b.status,
    startDateTime: b.startDateTime.toISOString(),
    endDateTime: b.endDateTime.toISOString(),
    timeZone: b.timeZone,
    meetingType: { id: b.meetingTypeId ?? null, name: b.meetingTypeName ?? null },
    attendeeInfo: { name: b.attendeeInfo.name, email: b.attendeeInfo.email },
    host: agent ? [agent.firstName, agent.lastName].filter(Boolean).join(' ') : null,
    bookingPage: {
      name: l.config.name,
      location: l.config.location ?? null,
      minimumNoticeMinutes: l.config.minimumNoticeMinutes,
    },
    approvalDeadlineAt: b.status === 'pending' ? (b.approvalDeadlineAt?.toISOString() ?? null) : null,
    canCancel: rules.canCancel,
    canReschedule: rules.canReschedule,
  };
}

function assertSelfService(l: Loaded, now: Date): void {
  const rules = selfService(l, now);
  if (rules.why) throw new DomainError('invalid_state', `this booking cannot be changed online: ${rules.why}`);
}

export async function publicSlots(
  orm: MikroORM,
  publicId: string,
  q: { startDate: string; endDate: string },
  now = new Date(),
): Promise<PublicSlotsView> {
  if (!isLocalDate(q.startDate))
    throw validation('startDate: must be a date YYYY-MM-DD', [{ path: 'startDate', error: 'not a date' }]);
  if (!isLocalDate(q.endDate))
    throw validation('endDate: must be a date YYYY-MM-DD', [{ path: 'endDate', error: 'not a date' }]);
  const l = await load(orm, publicId);
  const { slots } = await availableSlots(
    l.ctx.em,
    l.ctx.actor.workspaceId,
    l.config,
    { ...q, meetingTypeId: l.booking.meetingTypeId, excludeBookingId: l.booking._id },
    now,
  );
  // Attendees see times, not which agent is free.
  return {
    timeZone: l.config.timeZone,
    startDate: q.startDate,
    endDate: q.endDate,
    slots: slots.map(({ agentIds: _a, ...s }) => s),
  };
}

export async function publicCancel(
  orm: MikroORM,
  publicId: string,
  reason: string | undefined,
  side: BookingSideDeps,
  now = new Date(),
): Promise<PublicBookingView> {
  const l = await load(orm, publicId);
  assertSelfService(l, now);
  await cancelBooking(l.ctx, l.booking, { reason, by: 'attendee' }, side);
  return publicView(orm, publicId, now);
}

export async function publicReschedule(
  orm: MikroORM,
  publicId: string,
  newSlotStart: Date,
  side: BookingSideDeps,
  now = new Date(),
): Promise<PublicBookingView> {
  const l = await load(orm, publicId);
  assertSelfService(l, now);
  await rescheduleBooking(l.ctx, l.booking, { newSlotStart, by: 'attendee' }, side, { now });
  return publicView(orm, publicId, now);
}
