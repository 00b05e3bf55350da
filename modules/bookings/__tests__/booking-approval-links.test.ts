/**
 * Booking approvals, issue 28 part 1, against the real app, Postgres and Temporal: reminders at offsets before the
 * deadline (each once, through the outbox), the approvers' one-click signed links (GET never decides; a double
 * click decides once; used, expired, superseded and forged links), and the reschedule of a pending booking
 * (stays pending, deadline restarted, approvers and attendee told, a race for the new slot has one winner).
 * BOOKING_TIME_SCALE=0.001: one hour of deadline is 3.6 s.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Booking } from '../booking.entity';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import { HttpClient, type Tenant } from '../../../test/support/app';
import {
  action,
  chainGraph,
  createAutomation,
  waitFor,
  type EngineHarness,
} from '../../../test/support/automation-engine';
import { book, createConfig, freshDay, ownerId } from './support';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { RECORD, receivedMails, withApprovalEngine } from './approval-suite';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { approvalDeadlineFrom } from '../approval.service';
import { getBooking, rescheduleBooking } from '../bookings.service';
import { expectOk } from '../../../test/support/expect';

// RECORD_BOOKING_FIXTURE=1 rewrites test/fixtures/booking-approval-reminder-offsets.history.json (plain payloads).
let h: EngineHarness;
let t: Tenant;
let smtp: LocalSmtp;
let pub: HttpClient;
let ownerEmail: string;
withApprovalEngine('Booking approval links', (s) => ({ h, t, smtp, ownerEmail } = s));
beforeAll(() => {
  pub = new HttpClient(h.app.baseUrl);
});

const JSON_ACCEPT = { headers: { accept: 'application/json' } };
const em = () => h.app.runtime.deps.orm.em.fork();
const row = (id: string) => em().findOne(Booking, { _id: id }, { filters: false });
const eventsOf = (id: string, type: string) =>
  em().find(OutboxEvent, { entityId: id, type: type as never }, { filters: false, orderBy: { occurredAt: 'asc' } });
const mailsTo = (address: string) => receivedMails(smtp, address);
const approverMails = (bookingId: string) =>
  mailsTo(ownerEmail).filter((m) => m.raw.includes(bookingId) && m.headers.subject?.includes('awaiting approval'));
const LINK = /\/api\/v1\/public\/booking-decisions\/([0-9a-f]{72}\.\d+\.\d+\.[A-Za-z0-9_-]{43})/;
const linkOf = (raw: string): string => LINK.exec(raw)![1]!;
const decisionPath = (token: string) => `/api/v1/public/booking-decisions/${token}`;

async function pending(configOver: Record<string, unknown> = {}) {
  const c = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 24, ...configOver });
  const day = freshDay();
  const res = await book(t.http, c._id, `${day}T10:00:00Z`);
  expect(res.status).toBe(201);
  return { config: c, day, booking: res.body.data };
}
const firstLink = async (bookingId: string, subject = 'Booking awaiting approval') =>
  linkOf(
    (
      await waitFor(
        async () => approverMails(bookingId).find((m) => m.headers.subject?.startsWith(subject)),
        20_000,
        `the approver e-mail "${subject}"`,
      )
    ).raw,
  );

describe('approvalReminderHours on the config', () => {
  it.each([
    [[23], 24, 200],
    [[24], 24, 400],
    [[1, 2, 3, 4, 5], 24, 200],
    [[1, 2, 3, 4, 5, 6], 24, 400],
    [[0], 24, 400],
    [[2, 2], 24, 400],
    [[1.5], 24, 400],
    [3, 24, 400],
    [[], 24, 200],
    [null, 24, 200],
  ])('%j with approvalDeadlineHours %d → %d', async (hours, deadline, status) => {
    const c = await createConfig(t.http);
    const res = await t.http.patch(`/api/v1/booking-configs/${c._id}`, {
      approvalDeadlineHours: deadline,
      approvalReminderHours: hours,
    });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error).toMatch(/approvalReminderHours/);
  });

  it('stores offsets latest first; lowering the deadline below an offset is refused', async () => {
    const c = await createConfig(t.http);
    const res = await t.http.patch(`/api/v1/booking-configs/${c._id}`, { approvalReminderHours: [2, 24, 8] });
    expect(res.status).toBe(400); // 24 is not below the default deadline of 24 hours
    const ok = await t.http.patch(`/api/v1/booking-configs/${c._id}`, { approvalReminderHours: [2, 23, 8] });
    expect(ok.body.data.approvalReminderHours).toEqual([23, 8, 2]);
    const lower = await t.http.patch(`/api/v1/booking-configs/${c._id}`, { approvalDeadlineHours: 8 });
    expect(lower.status).toBe(400);
    expect(lower.body.error).toMatch(/less than approvalDeadlineHours \(8\)/);
  });
});

it('reminders at each offset before the deadline, once each, as outbox events and one e-mail per approver', async () => {
  // Deadline 3 h = 10.8 s; reminders 2 h and 1 h before it (3.6 s and 7.2 s after the request).
  const { booking } = await pending({ approvalDeadlineHours: 3, approvalReminderHours: [1, 2] });
  const rejected = await waitFor(
    async () => ((await row(booking._id))?.status === 'rejected' ? row(booking._id) : null),
    30_000,
    'the deadline',
  );
  expect(rejected!.approvalNotices.sort()).toEqual(['0:reminder:1', '0:reminder:2', '0:request']);
  const reminders = await eventsOf(booking._id, 'booking_approval_reminder');
  expect(reminders.map((e) => (e.payload as { reminderHours: number }).reminderHours)).toEqual([2, 1]);
  expect(await eventsOf(booking._id, 'booking_approval_requested')).toHaveLength(1);
  // Each reminder fell due at its offset before the deadline (scaled: 1 h = 3.6 s), not before.
  const deadline = Date.parse(booking.approvalDeadlineAt);
  for (const e of reminders) {
    const hours = (e.payload as { reminderHours: number }).reminderHours;
    expect(e.occurredAt.getTime()).toBeGreaterThanOrEqual(deadline - hours * 3600 - 50);
  }
  await waitFor(
    async () =>
      approverMails(booking._id).filter((m) => m.headers.subject?.startsWith('Reminder:')).length === 2 ? 1 : null,
    20_000,
    'two reminder e-mails',
  );
  expect(approverMails(booking._id)).toHaveLength(3);
}, 60_000);

it('the request and each reminder start the automations with their triggers (booking_approval_requested, booking_approval_reminder), filtered by config', async () => {
  const c = await createConfig(t.http, {
    requiresApproval: true,
    approvalDeadlineHours: 3,
    approvalReminderHours: [2],
  });
  const other = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 3 });
  const automations = new Map<string, string>();
  for (const triggerType of ['booking_approval_requested', 'booking_approval_reminder'])
    automations.set(
      triggerType,
      await createAutomation(
        t.http,
        chainGraph({ triggerType, config: { bookingConfigId: c._id } }, [
          action('create_activity', { description: 'Approval notice', activityType: 'note' }),
        ]),
      ),
    );
  const mine = await book(t.http, c._id, `${freshDay()}T10:00:00Z`);
  const theirs = await book(t.http, other._id, `${freshDay()}T11:00:00Z`);
  expect([mine.status, theirs.status]).toEqual([201, 201]);
  for (const [triggerType, id] of automations) {
    const run = await waitFor(
      async () => (await h.executionsOf(id)).find((r) => r.entityId === mine.body.data._id) ?? null,
      30_000,
      `the ${triggerType} run`,
    );
    expect(run).toMatchObject({ triggerType, entityType: 'booking' });
  }
  // The other config's booking started none of them, once its request went through the outbox.
  await waitFor(
    async () => ((await eventsOf(theirs.body.data._id, 'booking_approval_requested'))[0]?.processedAt ? 1 : null),
    20_000,
    "the other booking's request to be dispatched",
  );
  for (const id of automations.values())
    expect((await h.executionsOf(id)).filter((r) => r.entityId === theirs.body.data._id)).toEqual([]);
}, 60_000);

it('a double-clicked link decides once; GET never decides; the used link then says so; the token stays out of the history', async () => {
  const { booking } = await pending();
  const token = await firstLink(booking._id);
  // A mail scanner's prefetch (GET, HTML or JSON) decides nothing.
  const page = await pub.get(decisionPath(token));
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  expect(String(page.body)).toContain('Approve');
  expect(String(page.body)).toContain(booking.attendeeInfo.name);
  const view = await pub.get(decisionPath(token), JSON_ACCEPT);
  expect(view.body.data).toMatchObject({ state: 'open', canDecide: true, booking: { status: 'pending' } });
  expect((await row(booking._id))!.status).toBe('pending');

  const clicks = await Promise.all(
    [0, 1, 2].map(() => pub.post(decisionPath(token), { decision: 'approve', notes: 'Welcome' })),
  );
  expect(clicks.map((c) => c.status)).toEqual([200, 200, 200]);
  for (const c of clicks) expect(c.body.data).toMatchObject({ state: 'used', booking: { status: 'approved' } });
  const decided = (await row(booking._id))!;
  expect(decided).toMatchObject({ status: 'approved', decisionNotes: 'Welcome', decidedBy: await ownerId(t.http) });
  expect(decided.decisionId).toMatch(/^link-[A-Za-z0-9_-]{43}$/);
  await waitFor(async () => ((await eventsOf(booking._id, 'booking_approved')).length ? 1 : null), 10_000, 'event');
  await new Promise((r) => setTimeout(r, 500));
  const approved = await eventsOf(booking._id, 'booking_approved');
  expect(approved).toHaveLength(1);
  expect(approved[0]!.payload).toMatchObject({ decidedBy: 'user', via: 'email_link' });

  // Used: 410 with the outcome, for either decision; the page says so.
  const again = await pub.post(decisionPath(token), { decision: 'reject' });
  expect(again.status).toBe(410);
  expect(again.body).toMatchObject({ details: { state: 'used', status: 'approved' } });
  expect((await pub.get(decisionPath(token), JSON_ACCEPT)).status).toBe(410);
  expect(String((await pub.get(decisionPath(token))).body)).toContain('This link was used: the booking is approved');

  const history = historyToJSON(await h.client.workflow.getHandle(booking.approvalWorkflowId).fetchHistory());
  const signature = token.split('.').pop()!;
  for (const secret of [token, signature])
    for (const form of [secret, Buffer.from(secret).toString('base64')]) expect(history).not.toContain(form);
  expect((await row(booking._id))!.decisionId).not.toContain(signature);
}, 60_000);

it('a form post rejects and answers 303 back to the page; a link decided otherwise is 409', async () => {
  const { booking } = await pending();
  const token = await firstLink(booking._id);
  const res = await fetch(`${h.app.baseUrl}${decisionPath(token)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'decision=reject&reason=Fully+booked',
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(decisionPath(token));
  expect((await row(booking._id))!).toMatchObject({ status: 'rejected', rejectionReason: 'Fully booked' });

  const other = await pending();
  const link = await firstLink(other.booking._id);
  expect((await t.http.post(`/api/v1/bookings/${other.booking._id}/approve`, {})).status).toBe(200);
  const late = await pub.post(decisionPath(link), { decision: 'reject' });
  expect(late.status).toBe(409);
  expect(late.body).toMatchObject({ details: { state: 'decided', current: 'approved' } });
  expect(String((await pub.get(decisionPath(link))).body)).toContain('Someone already decided');
}, 60_000);

it('bad input and bad links: 400 for a malformed body, 404 for a malformed or forged link, 410 once expired', async () => {
  const { booking } = await pending({ approvalDeadlineHours: 1 });
  const token = await firstLink(booking._id);
  for (const body of [{}, { decision: 'maybe' }, { decision: 'approve', notes: 'x'.repeat(5001) }])
    expect((await pub.post(decisionPath(token), body)).status).toBe(400);
  expect((await pub.post(decisionPath(token), { decision: 'approve', notes: 'x'.repeat(5000) })).status).toBe(200);

  const other = await pending({ approvalDeadlineHours: 1 });
  const link = await firstLink(other.booking._id);
  const [head, gen, exp, sig] = link.split('.');
  const forged = [
    `${head}.${gen}.${Number(exp) + 3600}.${sig}`,
    `${head}.${Number(gen) + 1}.${exp}.${sig}`,
    `${head!.slice(0, 48)}${'0'.repeat(24)}.${gen}.${exp}.${sig}`,
  ];
  for (const f of forged) expect((await pub.get(decisionPath(f), JSON_ACCEPT)).status).toBe(404);
  expect((await pub.get(decisionPath('not-a-link'), JSON_ACCEPT)).status).toBe(404);
  // 1 h = 3.6 s: past the deadline the link has expired, whatever the booking became.
  await waitFor(async () => ((await row(other.booking._id))?.status === 'rejected' ? 1 : null), 20_000, 'deadline');
  const expired = await pub.post(decisionPath(link), { decision: 'approve' });
  expect(expired.status).toBe(410);
  expect(expired.body).toMatchObject({ details: { state: 'expired' } });
  expect(String((await pub.get(decisionPath(link))).body)).toContain('This link has expired');
}, 60_000);

it('rescheduling a pending booking keeps it pending, restarts the deadline, tells both sides and supersedes old links', async () => {
  // Deadline 2 h = 7.2 s; a reminder 1 h before it (the first one never falls due: the reschedule comes first).
  const { config, day, booking } = await pending({ approvalDeadlineHours: 2, approvalReminderHours: [1] });
  const oldLink = await firstLink(booking._id);
  await new Promise((r) => setTimeout(r, 2500));
  const res = await t.http.post(`/api/v1/bookings/${booking._id}/reschedule`, { newSlotStart: `${day}T12:00:00Z` });
  expectOk(res, { status: 'pending', rescheduleCount: 1 });
  const newDeadline = Date.parse(res.body.data.approvalDeadlineAt);
  expect(newDeadline).toBeGreaterThan(Date.parse(booking.approvalDeadlineAt) + 2000);
  const requested = await eventsOf(booking._id, 'booking_approval_requested');
  expect(requested.map((e) => (e.payload as { reason: string }).reason)).toEqual(['created', 'rescheduled']);

  const newLink = await firstLink(booking._id, 'Rescheduled: Booking awaiting approval');
  await waitFor(
    async () => mailsTo(booking.attendeeInfo.email).find((m) => m.headers.subject?.startsWith('Rescheduled')),
    20_000,
    "the attendee's reschedule e-mail",
  );
  const superseded = await pub.post(decisionPath(oldLink), { decision: 'approve' });
  expect(superseded.status).toBe(410);
  expect(superseded.body).toMatchObject({ details: { state: 'superseded' } });

  // Past the first deadline the booking is still pending: the run waits for the new one.
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(booking.approvalDeadlineAt) - Date.now()) + 1500));
  expect((await row(booking._id))!.status).toBe('pending');
  const slots = await t.http.get(
    `/api/v1/bookings/available-slots?configId=${config._id}&startDate=${day}&endDate=${day}`,
  );
  const starts = (slots.body.data.slots as { start: string }[]).map((s) => s.start);
  expect(starts).toContain(`${day}T10:00:00.000Z`);
  expect(starts).not.toContain(`${day}T12:00:00.000Z`);
  const decided = await pub.post(decisionPath(newLink), { decision: 'approve' });
  expect(decided.status).toBe(200);
  expect((await row(booking._id))!.status).toBe('approved');
  expect(await h.client.workflow.getHandle(booking.approvalWorkflowId).result()).toBe('approved');
  // One reminder, of the restarted deadline.
  expect((await row(booking._id))!.approvalNotices.sort()).toEqual(['0:request', '1:reminder:1']);
  const history = await h.client.workflow.getHandle(booking.approvalWorkflowId).fetchHistory();
  if (RECORD)
    writeFileSync(
      path.join(__dirname, '../../../test/fixtures/booking-approval-reminder-offsets.history.json'),
      `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`,
    );
}, 60_000);

it('a reschedule whose signal never reached the run: the run finds the later deadline on the row and waits', async () => {
  // Deadline 1 h = 3.6 s. The reschedule goes through the service with a side that loses the signal (engine away).
  const { day, booking } = await pending({ approvalDeadlineHours: 1 });
  await new Promise((r) => setTimeout(r, 1500));
  const ctx = {
    em: forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId),
    actor: { workspaceId: t.workspaceId, userId: await ownerId(t.http), role: 'owner' as const, scopes: [] },
  };
  const lost = {
    approvalDeadlineFrom: (c: Parameters<typeof approvalDeadlineFrom>[0], from: Date) =>
      approvalDeadlineFrom(c, from, 0.001),
    moveApproval: async () => undefined,
  };
  const moved = await rescheduleBooking(
    ctx,
    await getBooking(ctx, booking._id),
    { newSlotStart: new Date(`${day}T12:00:00Z`), by: 'user' },
    lost,
  );
  expect(moved.approvalDeadlineAt!.getTime()).toBeGreaterThan(Date.parse(booking.approvalDeadlineAt) + 1000);
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(booking.approvalDeadlineAt) - Date.now()) + 1000));
  expect((await row(booking._id))!.status).toBe('pending');
  const rejected = await waitFor(
    async () => ((await row(booking._id))?.status === 'rejected' ? row(booking._id) : null),
    20_000,
    'the new deadline',
  );
  expect(rejected!.decidedAt!.getTime()).toBeGreaterThanOrEqual(moved.approvalDeadlineAt!.getTime());
}, 60_000);

it('a reschedule racing a new booking for the same free slot: exactly one gets it', async () => {
  for (let round = 0; round < 3; round++) {
    const { config, day, booking } = await pending();
    const target = `${day}T14:00:00Z`;
    const [moved, created] = await Promise.all([
      t.http.post(`/api/v1/bookings/${booking._id}/reschedule`, { newSlotStart: target }),
      book(t.http, config._id, target),
    ]);
    expect([moved.status, created.status].sort()).toEqual(moved.status === 200 ? [200, 409] : [201, 409]);
    const loser = moved.status === 200 ? created : moved;
    expect(loser.body).toMatchObject({ details: { code: 'slot_unavailable' } });
    const holders = await em().find(
      Booking,
      { configId: config._id, startDateTime: new Date(target), status: { $in: ['pending', 'approved', 'confirmed'] } },
      { filters: false },
    );
    expect(holders).toHaveLength(1);
    // The loser of a lost reschedule keeps its old slot and stays pending with its deadline.
    if (moved.status === 409)
      expect((await row(booking._id))!).toMatchObject({ status: 'pending', rescheduleCount: 0 });
  }
}, 60_000);
