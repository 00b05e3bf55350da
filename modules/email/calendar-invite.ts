import ical, { ICalAttendeeStatus, ICalCalendarMethod } from 'ical-generator';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { sendEmail, type EmailDeps } from './email.service';
import { Email } from './email.entity';
import { EmailAccount } from './email-account.entity';
import { getEmail } from './emails.service';
import { serializeEmail } from './email-records';
import type { CalendarInviteView, RsvpResultView } from './email.views';
import { CalendarEvent, type Attendee, type AttendeeStatus, serializeEvent } from '../calendar';
import { emit } from '../../platform/outbox/emit';
import { createdEvent } from '../../platform/shared/changes';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';

/** The invite (text/calendar part) of a received e-mail, read with a small RFC 5545 property reader. */
export interface Invite {
  method: string | null;
  uid: string;
  summary: string | null;
  description: string | null;
  location: string | null;
  start: string | null;
  end: string | null;
  allDay: boolean;
  sequence: number;
  organizer: { email: string; name: string | null } | null;
  attendees: { email: string; name: string | null; status: string | null }[];
}

interface Prop {
  name: string;
  params: Record<string, string>;
  value: string;
}

function props(block: string[]): Prop[] {
  return block.map((line) => {
    const colon = line.search(/:(?=(?:[^"]*"[^"]*")*[^"]*$)/);
    const head = colon >= 0 ? line.slice(0, colon) : line;
    const [name, ...rest] = head.split(';');
    const params = Object.fromEntries(
      rest.map((p) => {
        const i = p.indexOf('=');
        return [p.slice(0, i).toUpperCase(), p.slice(i + 1).replace(/^"|"$/g, '')];
      }),
    );
    return { name: name!.toUpperCase(), params, value: colon >= 0 ? line.slice(colon + 1) : '' };
  });
}

const unescape = (v: string) => v.replace(/\\n/gi, '\n').replace(/\\([,;\\])/g, '$1');
const mailto = (v: string) =>
  v
    .replace(/^mailto:/i, '')
    .trim()
    .toLowerCase();

function icsDate(p: Prop | undefined): { iso: string | null; allDay: boolean } {
  if (!p) return { iso: null, allDay: false };
  const d = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(p.value.trim());
  if (!d) return { iso: null, allDay: false };
  if (!d[4]) return { iso: `${d[1]}-${d[2]}-${d[3]}`, allDay: true };
  // Floating and TZID times are shown as written (without an offset); UTC times with Z.
  return { iso: `${d[1]}-${d[2]}-${d[3]}T${d[4]}:${d[5]}:${d[6]}${d[7] ? 'Z' : ''}`, allDay: false };
}

export function parseInvite(ics: string): Invite | null {
  const lines = ics.replace(/\r?\n[ \t]/g, '').split(/\r?\n/);
  const start = lines.findIndex((l) => l.toUpperCase() === 'BEGIN:VEVENT');
  const end = lines.findIndex((l, i) => i > start && l.toUpperCase() === 'END:VEVENT');
  if (start < 0 || end < 0) return null;
  const ev = props(lines.slice(start + 1, end));
  const get = (n: string) => ev.find((p) => p.name === n);
  const uid = get('UID')?.value;
  if (!uid) return null;
  const method = props(lines.slice(0, start)).find((p) => p.name === 'METHOD')?.value ?? null;
  const s = icsDate(get('DTSTART'));
  const organizer = get('ORGANIZER');
  return {
    method,
    uid,
    summary: get('SUMMARY') ? unescape(get('SUMMARY')!.value) : null,
    description: get('DESCRIPTION') ? unescape(get('DESCRIPTION')!.value) : null,
    location: get('LOCATION') ? unescape(get('LOCATION')!.value) : null,
    start: s.iso,
    end: icsDate(get('DTEND')).iso,
    allDay: s.allDay,
    sequence: Number(get('SEQUENCE')?.value ?? 0) || 0,
    organizer: organizer ? { email: mailto(organizer.value), name: organizer.params.CN ?? null } : null,
    attendees: ev
      .filter((p) => p.name === 'ATTENDEE')
      .map((p) => ({ email: mailto(p.value), name: p.params.CN ?? null, status: p.params.PARTSTAT ?? null })),
  };
}

async function inviteOf(ctx: Ctx, id: string): Promise<{ email: Email; invite: Invite }> {
  const email = await getEmail(ctx, id);
  const invite = email.calendarInvite ? parseInvite(email.calendarInvite) : null;
  if (!invite) throw notFound('calendar invite');
  return { email, invite };
}

export async function getCalendarInvite(ctx: Ctx, id: string): Promise<CalendarInviteView> {
  const { email, invite } = await inviteOf(ctx, id);
  const event = await ctx.em.findOne(
    CalendarEvent,
    { icalUid: invite.uid },
    { fields: ['_id'], orderBy: { createdAt: 'asc' } },
  );
  return { emailId: email._id, ...invite, calendarEventId: event?._id ?? null, raw: email.calendarInvite ?? null };
}

const PARTSTAT: Record<string, AttendeeStatus> = {
  ACCEPTED: 'accepted',
  DECLINED: 'declined',
  TENTATIVE: 'tentative',
  'NEEDS-ACTION': 'needs_action',
};

/**
 * An invite time as an instant: UTC as given, floating/TZID times read as UTC (the invite names no offset we can apply
 * here).
 */
const instant = (iso: string | null, fallback: Date): Date => {
  if (!iso) return fallback;
  const d = new Date(/T\d{2}:\d{2}:\d{2}$/.test(iso) ? `${iso}Z` : iso);
  return Number.isNaN(d.getTime()) ? fallback : d;
};

/**
 * The calendar event of the invite (found by its iCalendar UID, created from the invite on the
 * first RSVP) with the mailbox's attendee status set to the response, in one transaction with its
 * event_created / event_updated event.
 */
async function recordRsvpOnEvent(
  ctx: Ctx,
  email: Email,
  invite: Invite,
  mailbox: string,
  response: RsvpResponse,
): Promise<string> {
  return inTransaction(ctx, async () => {
    let event = await ctx.em.findOne(CalendarEvent, { icalUid: invite.uid }, { orderBy: { createdAt: 'asc' } });
    const attendees: Attendee[] = invite.attendees.map((a) => ({
      email: a.email,
      name: a.name,
      status: PARTSTAT[(a.status ?? '').toUpperCase()] ?? 'needs_action',
    }));
    if (!event) {
      const start = instant(invite.start, email.date);
      event = createRecord(ctx, CalendarEvent, {
        title: (invite.summary ?? email.subject).slice(0, 500) || '(invite)',
        description: invite.description,
        type: 'meeting',
        start,
        end: instant(invite.end, start),
        allDay: invite.allDay,
        location: invite.location?.slice(0, 500) ?? null,
        attendees,
        companyId: email.companyId ?? null,
        personId: email.personId ?? null,
        leadId: email.leadId ?? null,
        dealId: email.dealId ?? null,
        ownerId: ctx.actor.userId,
        reminderMinutes: null,
        icalUid: invite.uid,
      });
      const me = event.attendees.find((a) => a.email === mailbox);
      event.attendees = me
        ? event.attendees.map((a) => (a.email === mailbox ? { ...a, status: response } : a))
        : [...event.attendees, { email: mailbox, name: null, status: response }];
      emit(ctx, { ...createdEvent('event', { event: serializeEvent(event) }), entityId: event._id });
      return event._id;
    }
    const before = event.attendees.find((a) => a.email === mailbox)?.status ?? null;
    if (before === response) return event._id;
    event.attendees = event.attendees.some((a) => a.email === mailbox)
      ? event.attendees.map((a) => (a.email === mailbox ? { ...a, status: response } : a))
      : [...event.attendees, { email: mailbox, name: null, status: response }];
    event.updatedAt = new Date();
    emit(ctx, {
      type: 'event_updated',
      entityType: 'event',
      entityId: event._id,
      payload: { event: serializeEvent(event), changes: { attendees: { from: before, to: response, email: mailbox } } },
    });
    return event._id;
  });
}

export type RsvpResponse = 'accepted' | 'declined' | 'tentative';
const fail = (): never => {
  throw validation('response: is required (accepted, declined or tentative)');
};
const STATUS: Record<RsvpResponse, ICalAttendeeStatus> = {
  accepted: ICalAttendeeStatus.ACCEPTED,
  declined: ICalAttendeeStatus.DECLINED,
  tentative: ICalAttendeeStatus.TENTATIVE,
};
const LABEL: Record<RsvpResponse, string> = { accepted: 'Accepted', declined: 'Declined', tentative: 'Tentative' };

/** Answers the organizer with an iTIP REPLY from the mailbox that received the invite (at most once per response). */
export async function rsvpCalendarInvite(
  ctx: Ctx,
  id: string,
  input: { response?: RsvpResponse; comment?: string },
  deps: EmailDeps,
): Promise<RsvpResultView> {
  const { email, invite } = await inviteOf(ctx, id);
  const response = input.response ?? fail();
  if (email.direction !== 'inbound' || !email.accountId)
    throw new DomainError('invalid_state', 'only invites received in a connected mailbox can be answered');
  if (!invite.organizer?.email) throw new DomainError('invalid_state', 'the invite names no organizer to answer');
  if (invite.method && invite.method.toUpperCase() !== 'REQUEST')
    throw new DomainError('invalid_state', `the calendar part is a ${invite.method}, not an invitation`);
  const account = await ctx.em.findOne(EmailAccount, { _id: email.accountId });
  if (!account) throw new DomainError('invalid_state', 'the mailbox that received the invite is no longer connected');
  const cal = ical({ prodId: { company: 'CRM', product: 'crm-api' }, method: ICalCalendarMethod.REPLY });
  const attendee = invite.attendees.find((a) => a.email === account.emailAddress);
  cal.createEvent({
    id: invite.uid,
    sequence: invite.sequence,
    summary: invite.summary ?? '',
    stamp: new Date(),
    start: invite.start ? new Date(invite.start) : new Date(),
    ...(invite.end ? { end: new Date(invite.end) } : {}),
    allDay: invite.allDay,
    organizer: { email: invite.organizer.email, name: invite.organizer.name ?? invite.organizer.email },
    attendees: [
      {
        email: account.emailAddress,
        name: attendee?.name ?? account.displayName ?? undefined,
        status: STATUS[response],
      },
    ],
    ...(input.comment ? { description: input.comment } : {}),
  });
  const subject = `${LABEL[response]}: ${invite.summary ?? email.subject}`;
  const sent = await sendEmail(
    ctx,
    {
      accountId: account._id,
      accountAccess: 'user',
      to: [invite.organizer.email],
      subject,
      text: `${account.displayName ?? account.emailAddress} has ${response === 'tentative' ? 'tentatively accepted' : response} this invitation.${input.comment ? `\n\n${input.comment}` : ''}`,
      calendar: { method: 'REPLY', content: cal.toString() },
      replyToMessageId: email._id,
      idempotencyKey: `rsvp:${email._id}:${response}`,
      source: 'api',
      links: {
        personId: email.personId ?? undefined,
        companyId: email.companyId ?? undefined,
        dealId: email.dealId ?? undefined,
        leadId: email.leadId ?? undefined,
      },
    },
    deps,
  );
  const reply = await ctx.em.findOneOrFail(Email, { _id: sent.emailId }, { refresh: true });
  const calendarEventId = await recordRsvpOnEvent(ctx, email, invite, account.emailAddress, response);
  return { emailId: email._id, uid: invite.uid, response, calendarEventId, reply: serializeEmail(reply, 'summary') };
}
