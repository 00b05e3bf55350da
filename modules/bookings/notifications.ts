/**
 * Booking e-mails through the one messaging layer (sendEmail: recorded, idempotent per key):
 * - the attendee, from the outbox (`booking-notifications` subscriber): confirmation with an
 *   iCalendar invite (REQUEST), "awaiting approval", approval (invite), rejection, cancellation
 *   (CANCEL), reschedule (REQUEST with a higher SEQUENCE);
 * - the approvers, from the approval workflow's activities: the request and its reminders.
 * E-mail not configured is logged and skipped (the booking stands). A failed attendee e-mail is parked
 * by the outbox for this subscriber only (webhooks and automations of the booking go on) and retried on
 * the outbox schedule (about a day); a refusal (SMTP 5xx, bad address) fails it at once. Either way
 * operators see it (GET /admin/outbox/deliveries, `crm outbox list`).
 */
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { DateTime } from 'luxon';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../domain/config';
import type { Ctx } from '../../domain/context';
import { DomainError } from '../../domain/errors';
import type { Logger } from '../../domain/logger';
import { sendEmail, type EmailDeps } from '../../domain/messaging/email.service';
import { createMessagingDeps, type MessagingDeps } from '../../domain/messaging/factory';
import { forkForWorkspace } from '../../domain/orm/tenant';
import { eventNames } from '../../domain/outbox/event-names';
import { PermanentFailure, type OutboxEventRecord, type Subscriber } from '../../domain/outbox/subscriber';
import { User } from '../../domain/workspaces/user.entity';
import { Booking, BookingConfig } from './booking.entity';

const ATTENDEE_EVENTS = eventNames(
  'booking_created',
  'booking_approved',
  'booking_rejected',
  'booking_cancelled',
  'booking_rescheduled',
);

export const publicBookingUrl = (baseUrl: string, publicId: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/api/v1/public/bookings/${publicId}`;

function when(b: Booking): string {
  const start = DateTime.fromJSDate(b.startDateTime, { zone: b.timeZone });
  const end = DateTime.fromJSDate(b.endDateTime, { zone: b.timeZone });
  return `${start.toFormat('cccc d LLLL yyyy, HH:mm')}-${end.toFormat('HH:mm')} (${b.timeZone})`;
}

/** The iCalendar part: one UID per booking, SEQUENCE = reschedules (+1 for a cancellation). */
export function bookingInvite(
  b: Booking,
  config: BookingConfig,
  organizer: { email: string; name: string },
  method: 'REQUEST' | 'CANCEL',
): string {
  const cal = ical({
    prodId: { company: 'CRM', product: 'crm-bookings' },
    method: method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  cal.createEvent({
    id: `booking-${b._id}@crm`,
    sequence: b.rescheduleCount + (method === 'CANCEL' ? 1 : 0),
    stamp: new Date(),
    start: b.startDateTime,
    end: b.endDateTime,
    timezone: b.timeZone,
    summary: `${b.meetingTypeName ?? 'Meeting'} – ${config.name}`,
    description: b.attendeeInfo.notes ?? undefined,
    location: config.location ?? undefined,
    status: method === 'CANCEL' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer,
    attendees: [
      { email: b.attendeeInfo.email, name: b.attendeeInfo.name, rsvp: true },
      ...b.invitedParticipants.map((p) => ({ email: p.email, name: p.name ?? undefined, rsvp: true })),
    ],
  });
  return cal.toString();
}

interface Mail {
  subject: string;
  text: string;
  invite: 'REQUEST' | 'CANCEL' | null;
}

export function attendeeMail(
  type: string,
  b: Booking,
  config: BookingConfig,
  manageUrl: string,
  payload: Record<string, unknown>,
): Mail | null {
  const what = `${b.meetingTypeName ?? 'Meeting'} (${config.name})`;
  const manage = `\n\nView, reschedule or cancel: ${manageUrl}`;
  const hi = `Hi ${b.attendeeInfo.name},\n\n`;
  switch (type) {
    case 'booking_created':
      // The status when the event happened: a mail held by an outage must not confirm what was then only requested.
      return ((payload.booking as { status?: string } | undefined)?.status ?? b.status) === 'pending'
        ? {
            subject: `Booking request received: ${what}`,
            text: `${hi}we received your booking request for ${when(b)}. It needs approval; we will e-mail you once it is decided.${manage}`,
            invite: null,
          }
        : {
            subject: `Confirmed: ${what}`,
            text: `${hi}your booking is confirmed for ${when(b)}.${manage}`,
            invite: 'REQUEST',
          };
    case 'booking_approved':
      return {
        subject: `Confirmed: ${what}`,
        text: `${hi}your booking for ${when(b)} was approved.${payload.notes ? `\n\n${String(payload.notes)}` : ''}${manage}`,
        invite: 'REQUEST',
      };
    case 'booking_rejected':
      return {
        subject: `Booking declined: ${what}`,
        text: `${hi}your booking request for ${when(b)} could not be accepted.${b.rejectionReason ? `\n\nReason: ${b.rejectionReason}` : ''}`,
        invite: null,
      };
    case 'booking_cancelled':
      return {
        subject: `Cancelled: ${what}`,
        text: `${hi}the booking for ${when(b)} is cancelled.${b.cancelReason ? `\n\nReason: ${b.cancelReason}` : ''}`,
        invite: 'CANCEL',
      };
    case 'booking_rescheduled':
      return {
        subject: `Rescheduled: ${what}`,
        text: `${hi}your booking was moved to ${when(b)}.${manage}`,
        invite: b.status === 'pending' ? null : 'REQUEST',
      };
    default:
      return null;
  }
}

function organizerOf(messaging: MessagingDeps): { email: string; name: string } {
  const from = messaging.transport.defaultFrom ?? '';
  const m = /^(?:"?([^"<]*)"?\s*)?<([^>]+)>$/.exec(from.trim());
  return m ? { email: m[2]!, name: (m[1] ?? '').trim() || m[2]! } : { email: from, name: from };
}

const notConfigured = (err: unknown): boolean => err instanceof DomainError && err.code === 'not_configured';

export interface NotificationDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  messaging?: MessagingDeps;
}

export function lazyMessaging(deps: NotificationDeps): () => MessagingDeps {
  let messaging = deps.messaging;
  return () => (messaging ??= createMessagingDeps(deps.config));
}

const emailDeps = (m: MessagingDeps): EmailDeps => ({
  transport: m.transport,
  accounts: m.accounts,
  tracking: m.tracking,
});

/** The outbox subscriber that e-mails attendees; idempotent on the event id (the send's key). */
export function bookingNotificationSubscriber(deps: NotificationDeps): Subscriber {
  const messaging = lazyMessaging(deps);
  return {
    name: 'booking-notifications',
    handles: (e) => e.entityType === 'booking' && ATTENDEE_EVENTS.includes(e.type),
    async handle(event: OutboxEventRecord) {
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      const booking = await em.findOne(Booking, { _id: event.entityId });
      if (!booking) return;
      const config = await em.findOne(BookingConfig, { _id: booking.configId });
      if (!config) return;
      const mail = attendeeMail(
        event.type,
        booking,
        config,
        publicBookingUrl(deps.config.publicBaseUrl, booking.publicId),
        event.payload,
      );
      if (!mail) return;
      const m = messaging();
      const ctx: Ctx = {
        em,
        actor: {
          workspaceId: event.workspaceId,
          userId: event.actorUserId ?? booking.agentId,
          role: 'owner',
          scopes: [],
        },
      };
      try {
        await sendEmail(
          ctx,
          {
            to: [booking.attendeeInfo.email],
            subject: mail.subject,
            text: mail.text,
            source: 'api',
            sourceRef: booking._id,
            idempotencyKey: `booking:${booking._id}:${event.eventId}`,
            links: {
              ...(booking.personId ? { personId: booking.personId } : {}),
              ...(booking.leadId ? { leadId: booking.leadId } : {}),
            },
            ...(mail.invite
              ? {
                  calendar: {
                    method: mail.invite,
                    content: bookingInvite(booking, config, organizerOf(m), mail.invite),
                  },
                }
              : {}),
          },
          emailDeps(m),
        );
      } catch (err) {
        if (notConfigured(err))
          return deps.log.warn(
            { bookingId: booking._id, event: event.type },
            'booking e-mail skipped: e-mail is not configured',
          );
        // A refused address, or a send that may already have reached the server: retrying cannot help.
        if (
          err instanceof DomainError &&
          (err.code === 'validation' || (err.details as { retryable?: boolean } | undefined)?.retryable === false)
        )
          throw new PermanentFailure(err.message);
        throw err;
      }
    },
  };
}

/** Approvers: the config's, else the workspace's owners and admins. */
async function approverAddresses(ctx: Ctx, config: BookingConfig): Promise<string[]> {
  const users = config.approvers.length
    ? await ctx.em.find(User, { _id: { $in: config.approvers } }, { fields: ['email'] })
    : await ctx.em.find(User, { role: { $in: ['owner', 'admin'] } }, { fields: ['email'], limit: 50 });
  return [...new Set(users.map((u) => u.email))];
}

export interface ApproverNotice {
  kind: 'request' | 'reminder';
  n: number;
}

/**
 * One e-mail to all approvers per notice (key booking:<id>:approval:<kind>:<n>); skipped once the booking is not
 * pending.
 */
export async function notifyApprovers(
  ctx: Ctx,
  bookingId: string,
  notice: ApproverNotice,
  deps: { messaging: MessagingDeps; publicBaseUrl: string; log: Logger },
): Promise<{ sent: boolean; reason?: string }> {
  const booking = await ctx.em.findOne(Booking, { _id: bookingId });
  if (!booking || booking.status !== 'pending') return { sent: false, reason: booking ? booking.status : 'missing' };
  const config = await ctx.em.findOne(BookingConfig, { _id: booking.configId });
  if (!config) return { sent: false, reason: 'config missing' };
  const to = await approverAddresses(ctx, config);
  if (!to.length) return { sent: false, reason: 'no approvers' };
  const api = `${deps.publicBaseUrl.replace(/\/+$/, '')}/api/v1/bookings/${booking._id}`;
  const deadline = booking.approvalDeadlineAt
    ? DateTime.fromJSDate(booking.approvalDeadlineAt, { zone: booking.timeZone }).toFormat('d LLLL yyyy, HH:mm')
    : 'the deadline';
  const subject = `${notice.kind === 'reminder' ? 'Reminder: ' : ''}Booking awaiting approval: ${booking.attendeeInfo.name}, ${when(booking)}`;
  const text = [
    `${booking.attendeeInfo.name} <${booking.attendeeInfo.email}> requested ${booking.meetingTypeName ?? 'a meeting'} (${config.name}) on ${when(booking)}.`,
    booking.attendeeInfo.notes ? `Notes: ${booking.attendeeInfo.notes}` : '',
    `Approve: POST ${api}/approve  ·  Reject: POST ${api}/reject`,
    `Without a decision by ${deadline} (${booking.timeZone}) the booking is ${config.onApprovalTimeout === 'approve' ? 'approved' : 'rejected'} automatically.`,
  ]
    .filter(Boolean)
    .join('\n\n');
  try {
    await sendEmail(
      ctx,
      {
        to,
        subject,
        text,
        source: 'api',
        sourceRef: booking._id,
        idempotencyKey: `booking:${booking._id}:approval:${notice.kind}:${notice.n}`,
        links: booking.personId ? { personId: booking.personId } : {},
      },
      emailDeps(deps.messaging),
    );
    return { sent: true };
  } catch (err) {
    if (notConfigured(err)) {
      deps.log.warn({ bookingId }, 'booking approval e-mail skipped: e-mail is not configured');
      return { sent: false, reason: 'not_configured' };
    }
    // A refused address is not worth retrying; transport failures are.
    if (err instanceof DomainError && err.code === 'validation') return { sent: false, reason: err.message };
    throw err;
  }
}
