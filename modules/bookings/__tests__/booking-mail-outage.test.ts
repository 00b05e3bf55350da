/**
 * Issue 24: a mail outage holds back nothing else. SMTP behind a TCP proxy that the test takes down:
 * bookings created and approved still reach a webhook receiver within 5 s and start the automation on
 * `booking_approved`; the attendee e-mails wait as parked outbox deliveries on the day-long schedule
 * and go out exactly once when mail is back (the schedule's 30 minutes are simulated by moving the
 * parked rows' next attempt). A 550 refusal fails the e-mail at once, visible to operators, and a
 * retry from the admin endpoint sends it.
 */
import { Pool } from 'pg';
import { createLogger } from '../../../platform/logger';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../../platform/outbox/dispatcher';
import { buildSubscribers } from '../../../app/subscribers';
import { STANDARD_RETRY_SCHEDULE_MS } from '../../webhooks/settings';
import { createSearchIndexSubscriber } from '../../../search/index-subscriber';
import { createSequenceWorkflowPort } from '../../sequences/sequence-client';
import type { Tenant } from '../../../test/support/app';
import {
  action,
  chainGraph,
  createAutomation,
  startEngineHarness,
  waitFor,
  type EngineHarness,
} from '../../../test/support/automation-engine';
import { book, createConfig, freshDay } from './support';
import { parkedDeliveries } from '../../../test/support/outbox';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { startReceiver, type Receiver } from '../../../test/support/webhooks';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectOk } from '../../../test/support/expect';

jest.setTimeout(120_000);
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'booking-mail-outage');
/** Read by the SMTP server at every message: set to make it refuse. */
const smtpBehaviour: { rejectData?: { code: number; message: string } } = {};
let smtp: LocalSmtp;
let proxy: TcpProxy;
let h: EngineHarness;
let t: Tenant;
let receiver: Receiver;
let dispatcher: OutboxDispatcher;
let db: Pool;

beforeAll(async () => {
  smtp = await startSmtp(smtpBehaviour);
  proxy = await startTcpProxy({ port: smtp.port });
  h = await startEngineHarness({
    SMTP_URL: `smtp://127.0.0.1:${proxy.port}`,
    MAIL_FROM: 'Acme Bookings <bookings@acme.test>',
    BOOKING_TIME_SCALE: '0.001',
    SECRETS_ENCRYPTION_KEY: 'test-encryption-key-for-webhook-secrets',
  });
  await h.startWorker();
  t = await h.app.tenant('Booking mail outage');
  db = new Pool({ connectionString: h.app.config.databaseUrl, max: 2 });
  receiver = await startReceiver();
  const sub = await t.http.post('/api/v1/webhooks/subscriptions', { url: receiver.url, events: ['booking.approved'] });
  expect(sub.status).toBe(201);
  // The worker's subscribers with the production retry schedule (the dispatcher's default backoff).
  dispatcher = createOutboxDispatcher({
    pgConnectionString: h.app.config.databaseUrl,
    workspaceIds: [t.workspaceId],
    log,
    pollIntervalMs: 100,
    subscribers: buildSubscribers({
      orm: h.app.runtime.deps.orm,
      config: h.app.config,
      log,
      workflows: h.workflows,
      sequenceWorkflows: createSequenceWorkflowPort(h.client, h.taskQueue),
      searchIndex: createSearchIndexSubscriber,
      webhookRetries: { startRetry: async () => 'started' },
    }),
  });
  await dispatcher.start();
}, 120_000);
afterAll(async () => {
  await dispatcher?.stop();
  await h?.close();
  await db?.end();
  await receiver?.close();
  await proxy?.close();
  await smtp?.close();
}, 60_000);

const parked = (bookingIds: string[]) =>
  parkedDeliveries(db, t.workspaceId, { subscriber: 'booking-notifications', entityIds: bookingIds });
/** Simulates the schedule's time passing: the parked e-mails are due now. */
const due = (bookingIds: string[]) =>
  db.query(
    `update outbox_delivery set next_attempt_at = now() where workspace_id = $1 and entity_id = any($2::text[])`,
    [t.workspaceId, bookingIds],
  );
const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
const approvedHooks = (bookingId: string) =>
  receiver.received.filter((r) => {
    const body = JSON.parse(r.body) as { type: string; data: { booking?: { _id: string } } };
    return body.type === 'booking.approved' && JSON.stringify(body.data).includes(bookingId);
  });

it('the retry schedule of a parked delivery lasts about a day, and longer than 30 minutes', () => {
  const total = STANDARD_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThanOrEqual(24 * 3_600_000);
  expect(STANDARD_RETRY_SCHEDULE_MS.slice(0, 3).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30 * 60_000);
});

it('SMTP down: approval webhooks arrive within 5 s and the automation runs; mail back later: each e-mail sent once', async () => {
  const automationId = await createAutomation(
    t.http,
    chainGraph({ triggerType: 'booking_approved' }, [action('create_task', { title: 'Prepare the meeting' })]),
  );
  await proxy.down();
  try {
    await outage(automationId);
  } finally {
    await proxy.up();
  }
});

async function outage(automationId: string): Promise<void> {
  const config = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 24 });
  const day = freshDay();
  const bookings: Array<{ _id: string; email: string }> = [];
  for (const hour of ['09', '10', '11']) {
    const res = await book(t.http, config._id, `${day}T${hour}:00:00Z`);
    expect(res.status).toBe(201);
    bookings.push({ _id: res.body.data._id, email: res.body.data.attendeeInfo.email });
  }
  const ids = bookings.map((b) => b._id);
  // The "request received" e-mails fail and are parked; the approvers' request (an outbox event of the same booking
  // since the approval-reminder-offsets patch) queues behind each.
  await waitFor(async () => ((await parked(ids)).length === 6 ? true : null), 15_000, 'six parked e-mails');

  for (const b of bookings) {
    const approved = await t.http.post(`/api/v1/bookings/${b._id}/approve`, {});
    expect(approved.status).toBe(200);
    const at = Date.now();
    await waitFor(async () => (approvedHooks(b._id).length ? true : null), 5000, `booking.approved of ${b._id}`);
    expect(Date.now() - at).toBeLessThan(5000);
  }
  const runs = await waitFor(
    async () => {
      const all = await h.executionsOf(automationId);
      return all.length === 3 ? all : null;
    },
    20_000,
    'three automation runs',
  );
  expect(runs.map((r) => r.entityId).sort()).toEqual([...ids].sort());

  // 35 minutes of the schedule (5 s, 5 min, 30 min) pass with mail still down: nothing is given up.
  for (let i = 0; i < 3; i++) {
    // Attempts count at the claim: wait until no attempt is in flight, so the next one is due from now.
    const settled = await waitFor(
      async () => {
        const rows = await parked(ids);
        return rows.every((p) => p.locked_by === null) ? rows : null;
      },
      10_000,
      'no attempt in flight',
    );
    await due(ids);
    await waitFor(
      async () => {
        const rows = await parked(ids);
        const was = new Map(settled.map((p) => [p.id, p.attempts]));
        return rows.some((p) => p.attempts > (was.get(p.id) ?? 0) && p.locked_by === null) ? true : null;
      },
      10_000,
      'a retry while mail is down',
    );
  }
  const held = await parked(ids);
  // Per booking: the request-received e-mail (failing, retried), the approvers' request and the approval queued
  // behind it.
  expect(held).toHaveLength(9);
  expect(held.filter((p) => p.type === 'booking_approval_requested').every((p) => p.attempts === 0)).toBe(true);
  expect(held.every((p) => p.status === 'pending')).toBe(true);
  expect(held.filter((p) => p.type === 'booking_created').every((p) => p.attempts >= 2 && p.last_error)).toBe(true);
  expect(held.filter((p) => p.type === 'booking_approved').every((p) => p.attempts === 0)).toBe(true);
  expect(bookings.flatMap((b) => mailsTo(b.email))).toEqual([]);

  await proxy.up();
  await waitFor(async () => ((await parked(ids)).every((p) => p.locked_by === null) ? true : null), 10_000, 'idle');
  await due(ids);
  await waitFor(async () => ((await parked(ids)).length === 0 ? true : null), 20_000, 'the held e-mails to go out');
  await new Promise((r) => setTimeout(r, 500)); // nothing more arrives
  for (const b of bookings) {
    const subjects = mailsTo(b.email).map((m) => m.headers.subject);
    expect(subjects).toHaveLength(2);
    expect(subjects[0]).toMatch(/^Booking request received/);
    expect(subjects[1]).toMatch(/^Confirmed/);
  }
}

it('550: the e-mail fails at once, operators see it, and a retry from the admin endpoint sends it', async () => {
  smtpBehaviour.rejectData = { code: 550, message: 'Mailbox unavailable' };
  try {
    const config = await createConfig(t.http);
    const res = await book(t.http, config._id, `${freshDay()}T09:00:00Z`);
    expect(res.status).toBe(201);
    const id = res.body.data._id as string;
    const [row] = await waitFor(
      async () => {
        const rows = await parked([id]);
        return rows.length && rows[0]!.status !== 'pending' ? rows : null;
      },
      15_000,
      'the refused e-mail to be failed',
    );
    expect(row).toMatchObject({ status: 'failed', attempts: 1, type: 'booking_created' });
    expect(row!.last_error).toMatch(/550/);

    const listed = await t.http.get('/api/v1/admin/outbox/deliveries?status=failed&subscriber=booking-notifications');
    expect(listed.status).toBe(200);
    const item = listed.body.data.find((d: { _id: string }) => d._id === row!.id);
    expect(item).toMatchObject({ status: 'failed', subscriber: 'booking-notifications', entityId: id, attempts: 1 });
    expect(item.lastError).toMatch(/550/);

    delete smtpBehaviour.rejectData;
    const retried = await t.http.post(`/api/v1/admin/outbox/deliveries/${row!.id}/retry`);
    expectOk(retried, { _id: row!.id, status: 'queued', attempts: 0 });
    await waitFor(async () => ((await parked([id])).length === 0 ? true : null), 10_000, 'the retried e-mail');
    expect(mailsTo(res.body.data.attendeeInfo.email).map((m) => m.headers.subject)).toEqual([
      expect.stringMatching(/^Confirmed/),
    ]);
  } finally {
    delete smtpBehaviour.rejectData;
  }
});

it('mail back: the first e-mail that goes out releases the parked ones at once, not at their 5-minute retry', async () => {
  const config = await createConfig(t.http);
  const day = freshDay();
  let held: Array<{ _id: string; email: string }> = [];
  await proxy.down();
  try {
    for (const hour of ['09', '10']) {
      const res = await book(t.http, config._id, `${day}T${hour}:00:00Z`);
      expect(res.status).toBe(201);
      held.push({ _id: res.body.data._id, email: res.body.data.attendeeInfo.email });
    }
    const ids = held.map((b) => b._id);
    await waitFor(
      async () => {
        const rows = await parked(ids);
        return rows.length === 2 && rows.every((p) => p.attempts >= 1 && p.locked_by === null) ? true : null;
      },
      15_000,
      'two parked e-mails',
    );
  } finally {
    await proxy.up();
  }
  const ids = held.map((b) => b._id);
  // As after the second failure of the schedule: the next attempt in 5 minutes, the last one 40 s ago.
  await db.query(
    `update outbox_delivery set attempts = 2, next_attempt_at = now() + interval '5 minutes',
       last_attempt_at = now() - interval '40 seconds' where workspace_id = $1 and entity_id = any($2::text[])`,
    [t.workspaceId, ids],
  );
  const started = Date.now();
  const fresh = await book(t.http, config._id, `${day}T12:00:00Z`);
  expect(fresh.status).toBe(201);
  await waitFor(async () => ((await parked(ids)).length === 0 ? true : null), 30_000, 'the held e-mails to go out');
  expect(Date.now() - started).toBeLessThan(30_000);
  for (const b of [...held, { _id: fresh.body.data._id, email: fresh.body.data.attendeeInfo.email }])
    expect(mailsTo(b.email).map((m) => m.headers.subject)).toEqual([expect.stringMatching(/^Confirmed/)]);
  held = [];
});

it('the approval deadline fires on time while the approver notice is retried through a mail outage', async () => {
  // 3 hours of deadline are 10.8 s here (BOOKING_TIME_SCALE); the notice's retries (5 s, 10 s, …) outlast it.
  const config = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 3 });
  await proxy.down();
  try {
    const res = await book(t.http, config._id, `${freshDay()}T09:00:00Z`);
    expect(res.status).toBe(201);
    const id = res.body.data._id as string;
    const decided = await waitFor(
      async () => {
        const b = (await t.http.get(`/api/v1/bookings/${id}`)).body.data;
        return b.status !== 'pending' ? b : null;
      },
      30_000,
      'the deadline to decide the booking',
    );
    const { rows } = await db.query<{ late_ms: number }>(
      `select extract(epoch from decided_at - approval_deadline_at) * 1000 as late_ms from booking where id = $1`,
      [id],
    );
    expect(decided.status).not.toBe('pending');
    expect(Number(rows[0]!.late_ms)).toBeLessThan(2000);
  } finally {
    await proxy.up();
  }
}, 60_000);
