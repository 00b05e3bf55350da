/**
 * Bookings against the real services: configs, available slots, the 20-request race on one slot
 * (exclusion constraint), cancel and reschedule freeing slots, the attendee's public endpoints,
 * e-mails with iCalendar parts (local SMTP, outbox dispatcher), tenancy and 400s.
 */
import { Booking } from '../booking.entity';
import { CalendarEvent } from '../../calendar/calendar-event.entity';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import type { Tenant } from '../../../test/support/app';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { book, createConfig, freshDay, ownerId } from './support';
import { assertCatalogued } from '../../../test/support/outbox';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { withEngine } from '../../../test/support/engine-suite';
import { expectOk, expectQueriesRefused } from '../../../test/support/expect';

let h: EngineHarness;
let t: Tenant;
let other: Tenant;
let smtp: LocalSmtp;
beforeAll(async () => {
  smtp = await startSmtp();
});
withEngine('Bookings', (s) => ({ h, t } = s), {
  env: () => ({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Acme Bookings <bookings@acme.test>' }),
  timeoutMs: 120_000,
});
beforeAll(async () => {
  other = await h.app.tenant('Bookings other');
  await h.dispatcher([t.workspaceId]).start();
});
afterAll(() => smtp?.close());

const em = () => h.app.runtime.deps.orm.em.fork();
const row = (id: string) => em().findOne(Booking, { _id: id }, { filters: false });
// Bodies are quoted-printable: undo the soft line breaks before looking for ids in them.
const mailsTo = (address: string) =>
  smtp.received.filter((m) => m.to.includes(address)).map((m) => ({ ...m, raw: m.raw.replace(/=\r?\n/g, '') }));
const slotsOf = async (configId: string, date: string, extra = '') => {
  const res = await t.http.get(
    `/api/v1/bookings/available-slots?configId=${configId}&startDate=${date}&endDate=${date}${extra}`,
  );
  expect(res.status).toBe(200);
  return (res.body.data.slots as { start: string }[]).map((s) => s.start);
};

describe('booking configs', () => {
  it('the first list creates one default config; GET by id; PATCH validates (IANA zone, HH:mm windows, users) and needs admin', async () => {
    const fresh = await h.app.tenant('Bookings defaults');
    const [a, b] = await Promise.all([
      fresh.http.get('/api/v1/booking-configs'),
      fresh.http.get('/api/v1/booking-configs'),
    ]);
    expect(a.status).toBe(200);
    expect(b.body.total).toBe(1);
    const list = (await fresh.http.get('/api/v1/booking-configs')).body;
    expect(list).toMatchObject({ page: 1, limit: 20, total: 1 });
    const def = list.data[0];
    expect(def).toMatchObject({
      name: 'Default',
      timeZone: 'Europe/Copenhagen',
      isDefault: true,
      requiresApproval: false,
      onApprovalTimeout: 'reject',
      meetingTypes: [{ id: 'meeting', durationMinutes: 30 }],
    });
    expect(def.agents).toEqual([
      {
        userId: await ownerId(fresh.http),
        weeklyAvailability: expect.objectContaining({ mon: [{ start: '09:00', end: '17:00' }] }),
      },
    ]);
    expect((await fresh.http.get(`/api/v1/booking-configs/${def._id}`)).body.data._id).toBe(def._id);

    const bad: [Record<string, unknown>, RegExp][] = [
      [{ timeZone: 'Mars/Base' }, /IANA/],
      [{ timeZone: 'CET+1' }, /IANA/],
      [
        { agents: [{ userId: def.agents[0].userId, weeklyAvailability: { mon: [{ start: '9:00', end: '17:00' }] } }] },
        /HH:mm/,
      ],
      [
        { agents: [{ userId: def.agents[0].userId, weeklyAvailability: { mon: [{ start: '10:00', end: '09:00' }] } }] },
        /after start/,
      ],
      [
        {
          agents: [
            {
              userId: def.agents[0].userId,
              weeklyAvailability: {
                mon: [
                  { start: '09:00', end: '12:00' },
                  { start: '11:00', end: '13:00' },
                ],
              },
            },
          ],
        },
        /overlap/,
      ],
      [{ agents: [{ userId: def.agents[0].userId, weeklyAvailability: { monday: [] } }] }, /weekdays/],
      [{ agents: [{ userId: '0123456789abcdef01234567', weeklyAvailability: {} }] }, /no user/],
      [{ meetingTypes: [] }, /at least one/],
      [{ meetingTypes: [{ id: 'a', name: 'A', durationMinutes: 2 }] }, /at least 5/],
      [{ onApprovalTimeout: 'ignore' }, /reject, approve/],
      [{ slotIntervalMinutes: 0 }, /at least 5/],
      [{ maxPerDay: 0 }, /at least 1/],
      [{ approvalDeadlineHours: 1.5 }, /integer/],
    ];
    for (const [body, message] of bad) {
      const res = await fresh.http.patch(`/api/v1/booking-configs/${def._id}`, body);
      expect([res.status, res.body.error]).toEqual([400, expect.stringMatching(message)]);
    }
    const member = await h.app.key(fresh.workspaceId, ['read', 'write'], 'member');
    expect((await member.patch(`/api/v1/booking-configs/${def._id}`, { name: 'Nope' })).status).toBe(403);
    const patched = await fresh.http.patch(`/api/v1/booking-configs/${def._id}`, {
      name: 'Sales calls',
      timeZone: 'America/New_York',
      bufferAfterMinutes: 15,
      maxPerDay: 4,
    });
    expectOk(patched, {
      name: 'Sales calls',
      timeZone: 'America/New_York',
      bufferAfterMinutes: 15,
      maxPerDay: 4,
      meetingTypes: def.meetingTypes,
    });
    expect((await fresh.http.get(`/api/v1/booking-configs/${def._id}`)).body.data.name).toBe('Sales calls');
  });
});

describe('available slots', () => {
  it('400 without configId, startDate or endDate, for bad dates and ranges over 62 days', async () => {
    const c = await createConfig(t.http);
    const cases = [
      `startDate=2031-01-01&endDate=2031-01-02`,
      `configId=${c._id}&endDate=2031-01-02`,
      `configId=${c._id}&startDate=2031-01-01`,
      `configId=${c._id}&startDate=2031-02-30&endDate=2031-03-01`,
      `configId=${c._id}&startDate=01/02/2031&endDate=2031-03-01`,
      `configId=${c._id}&startDate=2031-01-05&endDate=2031-01-04`,
      `configId=${c._id}&startDate=2031-01-01&endDate=2031-03-04`,
      `configId=${c._id}&startDate=2031-01-01&endDate=2031-01-02&meetingTypeId=nope`,
      `configId=nope&startDate=2031-01-01&endDate=2031-01-02`,
    ];
    await expectQueriesRefused(t.http, '/api/v1/bookings/available-slots?', cases);
    expect(
      (await t.http.get(`/api/v1/bookings/available-slots?configId=${c._id}&startDate=2031-01-01&endDate=2031-03-03`))
        .status,
    ).toBe(200);
    expect(
      (
        await other.http.get(
          `/api/v1/bookings/available-slots?configId=${c._id}&startDate=2031-01-01&endDate=2031-01-02`,
        )
      ).status,
    ).toBe(404);
  });

  it("minus bookings (with buffers) and the agent's calendar events", async () => {
    const c = await createConfig(t.http, { bufferAfterMinutes: 30 });
    const day = freshDay();
    expect(await slotsOf(c._id, day)).toHaveLength(48);
    expect((await book(t.http, c._id, `${day}T10:00:00Z`)).status).toBe(201);
    // The booking holds 10:00-11:00 (30 minutes + 30 after): 09:30 would overlap, 11:00 is free.
    const ev = await t.http.post('/api/v1/events', {
      title: 'Dentist',
      start: `${day}T14:10:00Z`,
      end: `${day}T14:20:00Z`,
      ownerId: await ownerId(t.http),
    });
    expect(ev.status).toBe(201);
    const free = await slotsOf(c._id, day);
    for (const taken of ['09:30', '10:00', '10:30', '13:30', '14:00'])
      expect(free).not.toContain(`${day}T${taken}:00.000Z`);
    for (const open of ['09:00', '11:00', '13:00', '14:30']) expect(free).toContain(`${day}T${open}:00.000Z`);
  });
});

describe('POST /bookings', () => {
  it('400s for missing or malformed fields', async () => {
    const c = await createConfig(t.http);
    const day = freshDay();
    const ok = {
      configId: c._id,
      slotStart: `${day}T10:00:00Z`,
      attendeeInfo: { name: 'Ann', email: 'ann@example.test' },
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, configId: undefined }, 'configId'],
      [{ ...ok, slotStart: undefined }, 'slotStart'],
      [{ ...ok, attendeeInfo: undefined }, 'attendeeInfo'],
      [{ ...ok, attendeeInfo: { name: 'Ann' } }, 'attendeeInfo.email'],
      [{ ...ok, attendeeInfo: { email: 'ann@example.test' } }, 'attendeeInfo.name'],
      [{ ...ok, attendeeInfo: { name: 'Ann', email: 'not-mail' } }, 'attendeeInfo.email'],
      [{ ...ok, slotStart: `${day}T10:00:00` }, 'slotStart'],
      [{ ...ok, slotStart: `${day}T10:10:00Z` }, 'slotStart'],
      [{ ...ok, slotStart: '2020-01-01T10:00:00Z' }, 'slotStart'],
      [{ ...ok, meetingTypeId: 'nope' }, 'meetingTypeId'],
      [{ ...ok, selectedAgentId: '0123456789abcdef01234567' }, 'selectedAgentId'],
      [{ ...ok, configId: '0123456789abcdef01234567' }, 'configId'],
      [
        { ...ok, invitedParticipants: Array.from({ length: 21 }, (_, i) => ({ email: `p${i}@example.test` })) },
        'invitedParticipants',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await t.http.post('/api/v1/bookings', body);
      expect([field, res.status]).toEqual([field, 400]);
      expect(res.body.error).toContain(field.split('.')[0]);
    }
    // Another workspace's config is none of this one (the statement that reads it is scoped): 400, nothing written.
    const foreign = await other.http.post('/api/v1/bookings', ok);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe(`configId: no booking config with id ${c._id} in this workspace`);
    expect(await em().count(Booking, { workspaceId: other.workspaceId }, { filters: false })).toBe(0);
  });

  it('confirms: person found or created, calendar event, booking_created, confirmation e-mail with an iCalendar REQUEST', async () => {
    const c = await createConfig(t.http, { location: 'Video call', createLead: true });
    const day = freshDay();
    const email = `grace-${Date.now()}@example.test`;
    const res = await book(t.http, c._id, `${day}T09:00:00Z`, {
      attendeeInfo: { name: 'Grace Hopper', email, phone: '+45 20 30 40 50', notes: 'About COBOL' },
      invitedParticipants: [{ email: 'guest@example.test', name: 'Guest' }],
      customFieldsData: { company: 'Navy' },
    });
    expect(res.status).toBe(201);
    const b = res.body.data;
    expect(b).toMatchObject({
      status: 'confirmed',
      configId: c._id,
      meetingTypeId: 'intro',
      startDateTime: `${day}T09:00:00.000Z`,
      endDateTime: `${day}T09:30:00.000Z`,
      agentId: await ownerId(t.http),
      source: 'api',
      customFieldsData: { company: 'Navy' },
    });
    expect(b.publicId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const person = (await t.http.get(`/api/v1/people/${b.personId}`)).body.data;
    expect(person).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', emails: [{ email }] });
    expect((await t.http.get(`/api/v1/leads/${b.leadId}`)).body.data).toMatchObject({
      personRef: b.personId,
      email,
      source: 'booking',
    });
    const event = await em().findOne(CalendarEvent, { _id: b.calendarEventId }, { filters: false });
    expect(event).toMatchObject({
      ownerId: b.agentId,
      personId: b.personId,
      start: new Date(b.startDateTime),
      location: 'Video call',
    });
    // The same e-mail again finds the person.
    const again = await book(t.http, c._id, `${day}T11:00:00Z`, {
      attendeeInfo: { name: 'G. Hopper', email: email.toUpperCase() },
    });
    expect(again.body.data.personId).toBe(b.personId);
    // By id and by publicId; another workspace gets 404 for both.
    expect((await t.http.get(`/api/v1/bookings/${b._id}`)).body.data._id).toBe(b._id);
    expect((await t.http.get(`/api/v1/bookings/${b.publicId}`)).body.data._id).toBe(b._id);
    expect((await other.http.get(`/api/v1/bookings/${b._id}`)).status).toBe(404);
    expect((await other.http.get(`/api/v1/bookings/${b.publicId}`)).status).toBe(404);
    const events = await em().find(OutboxEvent, { entityId: b._id });
    assertCatalogued(events);
    const created = events.find((e) => e.type === 'booking_created')!;
    expect(created.payload).toMatchObject({
      booking: { _id: b._id, bookingConfigId: c._id },
      links: { personId: b.personId, leadId: b.leadId },
    });
    const mail = await waitFor(
      async () => mailsTo(email).find((m) => m.raw.includes(b.publicId)),
      20_000,
      'the confirmation e-mail',
    );
    expect(mail.headers.subject).toContain('Confirmed: Intro call');
    expect(mail.raw).toContain('text/calendar');
    expect(mail.raw).toContain('METHOD:REQUEST');
    expect(mail.raw).toContain(`booking-${b._id}@crm`);
    expect(mail.raw).toContain(b.publicId);
  }, 60_000);

  it('20 concurrent requests for one slot: exactly one booking, 19 clear 409s', async () => {
    const c = await createConfig(t.http);
    const slot = `${freshDay()}T13:00:00Z`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        book(t.http, c._id, slot, {
          attendeeInfo: { name: `Racer ${i}`, email: `racer${i}-${Date.now()}@example.test` },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    // On failure, show what the others answered (status and error), not only how many.
    expect(
      results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => `${r.status} ${JSON.stringify(r.body)}`),
    ).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.body).toMatchObject({ error: expect.stringContaining('no longer available'), code: 'conflict' });
    const held = await em().find(Booking, { configId: c._id }, { filters: false });
    expect(held).toHaveLength(1);
    // The losers' CRM records rolled back with their insert: one person for the winner only.
    const people = (await t.http.get(`/api/v1/people?q=Racer`)).body.data as { firstName: string }[];
    expect(people.filter((p) => p.firstName === 'Racer')).toHaveLength(1);
  }, 60_000);

  it("maxPerDay caps an agent's day", async () => {
    const c = await createConfig(t.http, { maxPerDay: 2 });
    const day = freshDay();
    expect((await book(t.http, c._id, `${day}T08:00:00Z`)).status).toBe(201);
    expect((await book(t.http, c._id, `${day}T09:00:00Z`)).status).toBe(201);
    expect(await slotsOf(c._id, day)).toEqual([]);
    expect((await book(t.http, c._id, `${day}T10:00:00Z`)).status).toBe(409);
  });
});

describe('cancel and reschedule', () => {
  it('cancel frees the slot, removes the calendar event, notifies with an iCalendar CANCEL; a second cancel is 409', async () => {
    const c = await createConfig(t.http);
    const day = freshDay();
    const slot = `${day}T15:00:00.000Z`;
    const b = (await book(t.http, c._id, slot)).body.data;
    expect(await slotsOf(c._id, day)).not.toContain(slot);
    const res = await t.http.post(`/api/v1/bookings/${b._id}/cancel`, { reason: 'Sick' });
    expectOk(res, { status: 'cancelled', cancelledBy: 'user', cancelReason: 'Sick' });
    expect(await slotsOf(c._id, day)).toContain(slot);
    expect(await em().findOne(CalendarEvent, { _id: b.calendarEventId }, { filters: false })).toBeNull();
    expect((await t.http.post(`/api/v1/bookings/${b._id}/cancel`, {})).status).toBe(409);
    expect(
      (await t.http.post(`/api/v1/bookings/${b._id}/reschedule`, { newSlotStart: `${day}T16:00:00Z` })).status,
    ).toBe(409);
    // The slot can be booked again.
    expect((await book(t.http, c._id, slot)).status).toBe(201);
    const mail = await waitFor(
      async () => mailsTo(b.attendeeInfo.email).find((m) => m.headers.subject?.startsWith('Cancelled')),
      20_000,
      'the cancellation e-mail',
    );
    expect(mail.raw).toContain('METHOD:CANCEL');
  }, 40_000);

  it('reschedule moves the hold: old slot free, new slot held; a taken or off-grid slot is refused', async () => {
    const c = await createConfig(t.http);
    const day = freshDay();
    const b = (await book(t.http, c._id, `${day}T09:00:00Z`)).body.data;
    const blocker = (await book(t.http, c._id, `${day}T12:00:00Z`)).body.data;
    expect(
      (await t.http.post(`/api/v1/bookings/${b._id}/reschedule`, { newSlotStart: `${day}T12:00:00Z` })).status,
    ).toBe(409);
    expect(
      (await t.http.post(`/api/v1/bookings/${b._id}/reschedule`, { newSlotStart: `${day}T12:05:00Z` })).status,
    ).toBe(400);
    expect((await t.http.post(`/api/v1/bookings/${b._id}/reschedule`, {})).status).toBe(400);
    // Overlapping its own old hold is fine (the booking does not block itself).
    const moved = await t.http.post(`/api/v1/bookings/${b._id}/reschedule`, { newSlotStart: `${day}T09:30:00Z` });
    expectOk(moved, {
      status: 'confirmed',
      startDateTime: `${day}T09:30:00.000Z`,
      rescheduleCount: 1,
      rescheduleHistory: [{ from: `${day}T09:00:00.000Z`, to: `${day}T09:30:00.000Z`, by: 'user' }],
    });
    const free = await slotsOf(c._id, day);
    expect(free).toContain(`${day}T09:00:00.000Z`);
    expect(free).not.toContain(`${day}T09:30:00.000Z`);
    expect(
      (await em().findOne(CalendarEvent, { _id: b.calendarEventId }, { filters: false }))!.start.toISOString(),
    ).toBe(`${day}T09:30:00.000Z`);
    expect(blocker.status).toBe('confirmed');
    const rows = await em().find(OutboxEvent, { entityId: b._id });
    assertCatalogued(rows);
    const events = rows.map((e) => e.type);
    expect(events).toEqual(expect.arrayContaining(['booking_created', 'booking_rescheduled']));
  });
});

describe('GET /bookings', () => {
  it('filters, sorts and views with the list envelope', async () => {
    const c = await createConfig(t.http);
    const day = freshDay();
    const late = (await book(t.http, c._id, `${day}T16:00:00Z`)).body.data;
    const early = (await book(t.http, c._id, `${day}T08:00:00Z`)).body.data;
    await t.http.post(`/api/v1/bookings/${late._id}/cancel`, {});
    const list = await t.http.get(`/api/v1/bookings?configId=${c._id}&sortBy=startDateTime&sortOrder=asc`);
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 2, view: 'all' });
    expect(list.body.data.map((x: { _id: string }) => x._id)).toEqual([early._id, late._id]);
    expect(
      (await t.http.get(`/api/v1/bookings?configId=${c._id}&status=cancelled`)).body.data.map(
        (x: { _id: string }) => x._id,
      ),
    ).toEqual([late._id]);
    expect((await t.http.get(`/api/v1/bookings?configId=${c._id}&startFrom=${day}T09:00:00Z`)).body.total).toBe(1);
    expect((await t.http.get(`/api/v1/bookings?configId=${c._id}&view=upcoming`)).body.data[0]._id).toBe(early._id);
    expect((await t.http.get(`/api/v1/bookings?configId=${c._id}&view=past`)).body.total).toBe(0);
    const badQueries = [
      'status=done',
      'sortBy=title',
      'sortOrder=up',
      'view=summary',
      'startFrom=yesterday',
      'limit=101',
    ];
    await expectQueriesRefused(t.http, '/api/v1/bookings?', badQueries);
  });
});

describe('public attendee endpoints (no API key, by publicId)', () => {
  it("view, slots, reschedule and cancel within the config's rules", async () => {
    const c = await createConfig(t.http);
    const day = freshDay();
    const b = (await book(t.http, c._id, `${day}T10:00:00Z`)).body.data;
    const view = await h.app.anonymous.get(`/api/v1/public/bookings/${b.publicId}`);
    expectOk(view, {
      publicId: b.publicId,
      status: 'confirmed',
      startDateTime: `${day}T10:00:00.000Z`,
      canCancel: true,
      canReschedule: true,
      meetingType: { id: 'intro', name: 'Intro call' },
    });
    expect(view.body.data.personId).toBeUndefined();
    expect(view.body.data._id).toBeUndefined();
    expect((await h.app.anonymous.get(`/api/v1/public/bookings/${'x'.repeat(32)}`)).status).toBe(404);
    expect((await h.app.anonymous.get(`/api/v1/public/bookings/${b._id}`)).status).toBe(404);
    const slots = await h.app.anonymous.get(
      `/api/v1/public/bookings/${b.publicId}/available-slots?startDate=${day}&endDate=${day}`,
    );
    expect(slots.status).toBe(200);
    expect(slots.body.data.slots.map((s: { start: string }) => s.start)).toContain(`${day}T10:00:00.000Z`);
    expect(slots.body.data.slots[0].agentIds).toBeUndefined();
    const moved = await h.app.anonymous.post(`/api/v1/public/bookings/${b.publicId}/reschedule`, {
      newSlotStart: `${day}T11:00:00Z`,
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.startDateTime).toBe(`${day}T11:00:00.000Z`);
    expect((await row(b._id))!.rescheduleHistory[0]!.by).toBe('attendee');
    const cancelled = await h.app.anonymous.post(`/api/v1/public/bookings/${b.publicId}/cancel`, {
      reason: 'Conflict',
    });
    expectOk(cancelled, { status: 'cancelled', canCancel: false });
    expect((await row(b._id))!.cancelledBy).toBe('attendee');
    expect((await h.app.anonymous.post(`/api/v1/public/bookings/${b.publicId}/cancel`, {})).status).toBe(409);
  });

  it('refuses changes within the minimum notice and when self-service is off', async () => {
    const c = await createConfig(t.http);
    const soon = new Date(Math.ceil((Date.now() + 3 * 3_600_000) / 1_800_000) * 1_800_000).toISOString();
    const b = (await book(t.http, c._id, soon)).body.data;
    await t.http.patch(`/api/v1/booking-configs/${c._id}`, { minimumNoticeMinutes: 24 * 60 });
    const res = await h.app.anonymous.post(`/api/v1/public/bookings/${b.publicId}/cancel`, {});
    expect([res.status, res.body.error]).toEqual([409, expect.stringContaining('at least 1440 minutes')]);
    await t.http.patch(`/api/v1/booking-configs/${c._id}`, { minimumNoticeMinutes: 0, publicBookingEnabled: false });
    const off = await h.app.anonymous.post(`/api/v1/public/bookings/${b.publicId}/reschedule`, {
      newSlotStart: `${freshDay()}T10:00:00Z`,
    });
    expect([off.status, off.body.error]).toEqual([409, expect.stringContaining('turned off')]);
    // The API key holder still can.
    expect((await t.http.post(`/api/v1/bookings/${b._id}/cancel`, {})).status).toBe(200);
  });
});
