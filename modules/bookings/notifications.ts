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
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { createMessagingDeps, sendEmail, type MessagingDeps } from '../email';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { eventNames } from '../../platform/outbox/event-names';
import { PermanentFailure, type OutboxEventRecord, type Subscriber } from '../../platform/outbox/subscriber';
import { Booking, BookingConfig } from './booking.entity';
import { mailApprovers } from './approver-notices';
import { decisionLinkKey } from './decision-links';
import { emailDeps, notConfigured, when } from './mail-parts';

const APPROVER_EVENTS = eventNames('booking_approval_requested', 'booking_approval_reminder');
const ATTENDEE_EVENTS = eventNames(
  'booking_created',
  'booking_approved',
  'booking_rejected',
  'booking_cancelled',
  'booking_rescheduled',
);

export const publicBookingUrl = (baseUrl: string, publicId: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/api/v1/public/bookings/${publicId}`;

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

/**
 * The outbox subscriber that e-mails attendees (idempotent on the event id, the send's key) and approvers (the
 * approval workflow's queued notices and a pending booking's reschedule: approver-notices.ts).
 */
export function bookingNotificationSubscriber(deps: NotificationDeps): Subscriber {
  const messaging = lazyMessaging(deps);
  const linkKey = decisionLinkKey(deps.config);
  const approverNotice = async (em: Ctx['em'], event: OutboxEventRecord): Promise<void> => {
    const p = event.payload as { generation?: number; reminderHours?: number; reason?: string };
    const generation = p.generation ?? 0;
    const kind =
      event.type === 'booking_approval_reminder' ? 'reminder' : p.reason === 'rescheduled' ? 'rescheduled' : 'request';
    const key = kind === 'reminder' ? `${generation}:reminder:${p.reminderHours}` : `${generation}:request`;
    const ctx: Ctx = {
      em,
      actor: { workspaceId: event.workspaceId, userId: event.actorUserId ?? '', role: 'owner', scopes: [] },
    };
    const result = await mailApprovers(
      ctx,
      event.entityId,
      { key, kind, generation },
      { messaging: messaging(), publicBaseUrl: deps.config.publicBaseUrl, linkKey, log: deps.log },
    );
    if (!result.sent && result.reason !== 'not_configured')
      deps.log.info({ bookingId: event.entityId, notice: key, reason: result.reason }, 'approver notice not sent');
  };
  return {
    name: 'booking-notifications',
    handles: (e) =>
      e.entityType === 'booking' && (ATTENDEE_EVENTS.includes(e.type) || APPROVER_EVENTS.includes(e.type)),
    async handle(event: OutboxEventRecord) {
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      if (APPROVER_EVENTS.includes(event.type)) return approverNotice(em, event);
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
