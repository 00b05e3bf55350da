/**
 * Approval reminders survive worker crashes: the worker (a process of its own) is killed -9 the moment a reminder
 * is queued (its activity committed; Temporal may not have heard of it), another worker takes over, and each
 * reminder is still queued once and e-mailed once per approver. The retry of a queued notice (what Temporal does
 * after such a crash) queues nothing. BOOKING_TIME_SCALE=0.0005: one hour is 1.8 s.
 */
import { Booking } from '../booking.entity';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import type { Tenant } from '../../../test/support/app';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { withMailCrashEngine } from '../../../test/support/crash-suite';
import { activitiesOf } from '../../../test/support/engine-suite';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { book, createConfig, freshDay } from './support';

let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let startChild: () => Promise<void>;
let killChild: () => Promise<void>;
withMailCrashEngine(
  'Booking reminder crash',
  { BOOKING_TIME_SCALE: '0.0005' },
  (s) => ({ h, t, smtp, startChild, killChild } = s),
);
beforeAll(() => h.dispatcher([t.workspaceId]).start());

const em = () => h.app.runtime.deps.orm.em.fork();
const row = (id: string) => em().findOne(Booking, { _id: id }, { filters: false, refresh: true });
/** Polls every 10 ms until the booking's notices include `key` (the kill should land right after the commit). */
async function untilNotice(id: string, key: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await row(id))?.approvalNotices.includes(key)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for notice ${key}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('each reminder is queued and e-mailed once although the worker is killed -9 right after queueing it', async () => {
  const owner = (await t.http.get('/api/v1/whoami')).body.data.user.email as string;
  // Deadline 24 h = 43.2 s; reminders 20 h and 4 h before it: 7.2 s and 36 s after the request (room for a worker
  // process to start, which bundles the workflow code, between them).
  const config = await createConfig(t.http, {
    requiresApproval: true,
    approvalDeadlineHours: 24,
    approvalReminderHours: [20, 4],
  });
  await startChild();
  const res = await book(t.http, config._id, `${freshDay()}T10:00:00Z`);
  expect(res.status).toBe(201);
  const id = res.body.data._id as string;

  await untilNotice(id, '0:reminder:20');
  await killChild();
  await startChild();
  await untilNotice(id, '0:reminder:4');
  await killChild();
  await h.startWorker();

  await waitFor(async () => ((await row(id))?.status === 'rejected' ? true : null), 120_000, 'the deadline');
  const events = await em().find(
    OutboxEvent,
    { entityId: id, type: { $in: ['booking_approval_reminder', 'booking_approval_requested'] } },
    { filters: false, orderBy: { occurredAt: 'asc' } },
  );
  expect(events.map((e) => [e.type, (e.payload as { reminderHours?: number }).reminderHours])).toEqual([
    ['booking_approval_requested', undefined],
    ['booking_approval_reminder', 20],
    ['booking_approval_reminder', 4],
  ]);
  const reminders = () =>
    smtp.received.filter(
      (m) => m.to.includes(owner) && m.headers.subject?.startsWith('Reminder:') && m.raw.includes(id),
    );
  await waitFor(async () => (reminders().length >= 2 ? true : null), 20_000, 'the reminder e-mails');
  await new Promise((r) => setTimeout(r, 1000));
  expect(reminders()).toHaveLength(2);

  // What Temporal does after a crash between the commit and the report: the attempt again. Nothing more is queued.
  const activities = await activitiesOf(h);
  const again = await activities.queueApproverNotice({
    workspaceId: t.workspaceId,
    bookingId: id,
    generation: 0,
    kind: 'reminder',
    reminderHours: 4,
  });
  expect(again).toEqual({ queued: false });
}, 240_000);

it('a retried notice of a pending booking is queued once', async () => {
  const config = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 24 });
  const res = await book(t.http, config._id, `${freshDay()}T10:00:00Z`);
  const id = res.body.data._id as string;
  const activities = await activitiesOf(h);
  const notice = {
    workspaceId: t.workspaceId,
    bookingId: id,
    generation: 0,
    kind: 'reminder' as const,
    reminderHours: 3,
  };
  const results = await Promise.all([0, 1, 2].map(() => activities.queueApproverNotice(notice)));
  expect(results.filter((r) => r.queued)).toHaveLength(1);
  // A notice of another generation (the booking was rescheduled since) is not queued.
  expect((await activities.queueApproverNotice({ ...notice, generation: 1 })).queued).toBe(false);
  expect(await em().count(OutboxEvent, { entityId: id, type: 'booking_approval_reminder' }, { filters: false })).toBe(
    1,
  );
  expect((await t.http.post(`/api/v1/bookings/${id}/cancel`, {})).status).toBe(200);
}, 60_000);
