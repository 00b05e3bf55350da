import { simpleParser } from 'mailparser';
import type { Tenant, TestApp } from '../../../test/support/app';
import { connectAccount, rawMail } from '../../../test/support/email';
import { makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { withMailbox } from '../../../test/support/mail-suite';
import { expectOk } from '../../../test/support/expect';

let app: TestApp;
let smtp: LocalSmtp;
let t: Tenant;
let accountId: string;
let secret: string;
let personId: string;

withMailbox('Inbound mail', (s) => ({ app, smtp, t, accountId, inboundSecret: secret } = s));
beforeAll(async () => {
  personId = (await makePerson(t.http, { firstName: 'Ann', emails: [{ email: 'ann@example.com' }] })).body.data._id;
});

const mime = (
  headers: Record<string, string>,
  body = 'Thanks, sounds good.',
  contentType = 'text/plain; charset=utf-8',
) =>
  rawMail(
    {
      From: 'Ann <ann@example.com>',
      To: 'sales@acme.example',
      Subject: 'Hello',
      'Content-Type': contentType,
      ...headers,
    },
    body,
  );
const deliver = (
  raw: string,
  headers: Record<string, string> = { 'x-webhook-secret': secret, 'content-type': 'message/rfc822' },
) => app.anonymous.post(`/api/webhooks/email/inbound/${accountId}`, undefined, { headers, raw });

it('stores a reply to an e-mail we sent in its thread, linked to the sender, and emits email_received + email_replied', async () => {
  const sent = (
    await t.http.post('/api/v1/emails', {
      accountId,
      to: 'ann@example.com',
      subject: 'Offer',
      text: 'Here it is',
      linkDealId: undefined,
    })
  ).body.data;
  const raw = mime({ Subject: 'Re: Offer', 'In-Reply-To': sent.messageId, References: sent.messageId });
  const res = await deliver(raw);
  expect(res.status).toBe(202);
  expect(res.body.data).toMatchObject({
    kind: 'received',
    duplicate: false,
    replyTo: sent._id,
    email: {
      direction: 'inbound',
      folder: 'inbox',
      status: 'received',
      subject: 'Re: Offer',
      threadId: sent._id,
      inReplyTo: sent.messageId,
      personId,
      accountId,
      text: 'Thanks, sounds good.',
    },
  });
  const received = res.body.data.email;

  const thread = (await t.http.get(`/api/v1/emails/threads/${sent._id}`)).body.data;
  expect(thread.emails.map((e: { _id: string }) => e._id)).toEqual([sent._id, received._id]);
  const events = await eventsFor(app.runtime.deps.orm, received._id);
  expect(events.map((e) => e.type)).toEqual(['email_received', 'email_replied']);
  expect(events[1]).toMatchObject({
    entity_type: 'email',
    payload: {
      email: { _id: received._id, threadId: sent._id },
      links: { personId },
      inReplyTo: { emailId: sent._id, source: 'api' },
    },
  });
  const timeline = (await t.http.get(`/api/v1/people/${personId}/activities`)).body.data;
  expect(
    timeline.some(
      (a: { summary: string; metadata: { direction?: string } }) =>
        a.summary === 'Re: Offer' && a.metadata.direction === 'inbound',
    ),
  ).toBe(true);
  expect(
    (await t.http.get(`/api/v1/emails?folder=inbox&threadId=${sent._id}`)).body.data.map((e: { _id: string }) => e._id),
  ).toEqual([received._id]);

  // A re-delivery of the same message stores nothing new.
  const again = await deliver(raw);
  expect(again.body.data).toMatchObject({ kind: 'received', duplicate: true, email: { _id: received._id } });
  expect((await t.http.get(`/api/v1/emails/threads/${sent._id}`)).body.data.count).toBe(2);
});

it('a new message from an unknown sender starts its own thread and emits only email_received', async () => {
  const res = await deliver(mime({ From: 'stranger@elsewhere.example', Subject: 'Question' }), {
    'x-webhook-secret': secret,
    'content-type': 'text/plain',
  });
  expect(res.status).toBe(202);
  const email = res.body.data.email;
  expect(email).toMatchObject({ threadId: email._id, personId: null, companyId: null });
  expect((await eventsFor(app.runtime.deps.orm, email._id)).map((e) => e.type)).toEqual(['email_received']);
});

it('a delivery status notification marks the original as bounced and emits email_bounced', async () => {
  const sent = (
    await t.http.post('/api/v1/emails', { accountId, to: 'gone@example.com', subject: 'Will bounce', text: 'x' })
  ).body.data;
  const boundary = 'dsn-boundary';
  const dsn = mime(
    { From: 'MAILER-DAEMON@mx.example', Subject: 'Undelivered Mail Returned to Sender' },
    [
      `--${boundary}`,
      'Content-Type: text/plain',
      '',
      'Your message could not be delivered.',
      '',
      `--${boundary}`,
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example',
      '',
      'Final-Recipient: rfc822; gone@example.com',
      'Action: failed',
      'Status: 5.1.1',
      '',
      `--${boundary}`,
      'Content-Type: text/rfc822-headers',
      '',
      `Message-ID: ${sent.messageId}`,
      'Subject: Will bounce',
      '',
      `--${boundary}--`,
    ].join('\r\n'),
    `multipart/report; report-type=delivery-status; boundary="${boundary}"`,
  );
  const res = await deliver(dsn);
  expect(res.status).toBe(202);
  expect(res.body.data).toEqual({ kind: 'bounced', emailId: sent._id, recipients: ['gone@example.com'] });
  expect((await t.http.get(`/api/v1/emails/${sent._id}`)).body.data.status).toBe('bounced');
  const bounced = (await eventsFor(app.runtime.deps.orm, sent._id)).filter((e) => e.type === 'email_bounced');
  expect(bounced).toHaveLength(1);
  expect(bounced[0]).toMatchObject({
    payload: { email: { _id: sent._id }, recipients: ['gone@example.com'], source: 'api' },
  });
});

it('keeps the calendar invite of a received e-mail, reads it and answers it (iCalendar REPLY)', async () => {
  const boundary = 'cal-boundary';
  const mailbox = (
    (await t.http.get('/api/v1/email-accounts')).body.data as { _id: string; emailAddress: string }[]
  ).find((a) => a._id === accountId)!.emailAddress;
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//EN',
    'METHOD:REQUEST',
    'BEGIN:VEVENT',
    'UID:meet-1@example.com',
    'DTSTAMP:20301001T080000Z',
    'DTSTART:20301002T090000Z',
    'DTEND:20301002T100000Z',
    'SUMMARY:Demo',
    'ORGANIZER:mailto:ann@example.com',
    `ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:${mailbox}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n');
  const raw = mime(
    { Subject: 'Invitation: Demo' },
    [
      `--${boundary}`,
      'Content-Type: text/plain',
      '',
      'Join us',
      '',
      `--${boundary}`,
      'Content-Type: text/calendar; method=REQUEST; charset=utf-8',
      '',
      ics,
      '',
      `--${boundary}--`,
    ].join('\r\n'),
    `multipart/mixed; boundary="${boundary}"`,
  );
  const res = await deliver(raw);
  const email = res.body.data.email;
  expect(email.hasCalendarInvite).toBe(true);

  const invite = await t.http.get(`/api/v1/emails/${email._id}/calendar-invite`);
  expectOk(invite, {
    emailId: email._id,
    method: 'REQUEST',
    uid: 'meet-1@example.com',
    summary: 'Demo',
    start: '2030-10-02T09:00:00Z',
    end: '2030-10-02T10:00:00Z',
    organizer: { email: 'ann@example.com' },
    attendees: [{ email: mailbox, status: 'NEEDS-ACTION' }],
  });

  for (const body of [{}, { response: 'maybe' }])
    expect((await t.http.post(`/api/v1/emails/${email._id}/calendar-invite`, body)).status).toBe(400);
  const before = smtp.received.length;
  const rsvp = await t.http.post(`/api/v1/emails/${email._id}/calendar-invite`, {
    response: 'accepted',
    comment: 'See you',
  });
  expectOk(rsvp, {
    emailId: email._id,
    uid: 'meet-1@example.com',
    response: 'accepted',
    reply: { subject: 'Accepted: Demo', threadId: email.threadId },
  });
  // Answering again with the same response sends nothing new.
  await t.http.post(`/api/v1/emails/${email._id}/calendar-invite`, { status: 'accepted' });
  const replies = smtp.received.slice(before);
  expect(replies).toHaveLength(1);
  expect(replies[0]!.to).toEqual(['ann@example.com']);
  const parsed = await simpleParser(replies[0]!.raw);
  const ical =
    parsed.attachments.find((a) => a.contentType === 'text/calendar')?.content.toString() ?? String(parsed.text);
  expect(replies[0]!.raw).toMatch(/METHOD[=:]REPLY/);
  expect(ical + replies[0]!.raw).toMatch(/PARTSTAT=ACCEPTED/);
  expect(parsed.inReplyTo).toBe(email.messageId);

  // The RSVP is on the calendar: the invite's event (created from it, found by its UID) shows the mailbox's answer.
  const eventId = rsvp.body.data.calendarEventId as string;
  expect(eventId).toMatch(/^[0-9a-f]{24}$/);
  const event = (await t.http.get(`/api/v1/events/${eventId}`)).body.data;
  expect(event).toMatchObject({
    title: 'Demo',
    type: 'meeting',
    start: '2030-10-02T09:00:00.000Z',
    end: '2030-10-02T10:00:00.000Z',
    attendees: [{ email: mailbox, status: 'accepted' }],
  });
  expect((await t.http.get(`/api/v1/emails/${email._id}/calendar-invite`)).body.data.calendarEventId).toBe(eventId);
  const declined = await t.http.post(`/api/v1/emails/${email._id}/calendar-invite`, { response: 'declined' });
  expect(declined.body.data.calendarEventId).toBe(eventId);
  expect((await t.http.get(`/api/v1/events/${eventId}`)).body.data.attendees).toEqual([
    { email: mailbox, name: null, status: 'declined' },
  ]);
  expect((await eventsFor(app.runtime.deps.orm, eventId)).map((e) => e.type)).toEqual([
    'event_created',
    'event_updated',
  ]);
  expect(smtp.received.slice(before)).toHaveLength(2);

  // An e-mail without an invite has none to read or answer.
  const sent = (
    await t.http.post('/api/v1/emails', { accountId, to: 'ann@example.com', subject: 'No invite', text: 'x' })
  ).body.data;
  expect((await t.http.get(`/api/v1/emails/${sent._id}/calendar-invite`)).status).toBe(404);
  expect((await t.http.post(`/api/v1/emails/${sent._id}/calendar-invite`, { response: 'declined' })).status).toBe(404);
});

it.each([
  ['no secret', { 'content-type': 'message/rfc822' }, 401],
  ['wrong secret', { 'x-webhook-secret': 'whin_wrong', 'content-type': 'message/rfc822' }, 401],
])('refuses %s', async (_n, headers, status) => {
  const res = await deliver(mime({}), headers);
  expect(res.status).toBe(status);
  expect(typeof res.body.error).toBe('string');
});

it('refuses unknown accounts, empty bodies and other content types', async () => {
  expect(
    (
      await app.anonymous.post('/api/webhooks/email/inbound/0123456789abcdef01234567', undefined, {
        headers: { 'x-webhook-secret': secret, 'content-type': 'message/rfc822' },
        raw: mime({}),
      })
    ).status,
  ).toBe(404);
  expect(
    (
      await app.anonymous.post('/api/webhooks/email/inbound/nope', undefined, {
        headers: { 'x-webhook-secret': secret },
        raw: 'x',
      })
    ).status,
  ).toBe(404);
  expect((await deliver('', { 'x-webhook-secret': secret, 'content-type': 'message/rfc822' })).status).toBe(400);
  expect((await deliver(mime({}), { 'x-webhook-secret': secret, 'content-type': 'image/png' })).status).toBe(400);
  // Another workspace's secret does not open this account.
  const other = await app.tenant('Inbound other');
  const otherSecret = (await connectAccount(app, other.workspaceId, smtp.port)).inboundSecret;
  expect((await deliver(mime({}), { 'x-webhook-secret': otherSecret, 'content-type': 'message/rfc822' })).status).toBe(
    401,
  );
});
