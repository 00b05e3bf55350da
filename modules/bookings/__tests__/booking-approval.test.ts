/**
 * Booking approval as a Temporal workflow (booking-approval:<workspaceId>:<bookingId>) against the
 * real services: approve/reject as updates answering synchronously, approver notice and reminders
 * by e-mail, cancel ending the run, and the deadline reached while no worker runs (the timer is
 * durable on the server; a restarted worker applies onApprovalTimeout). BOOKING_TIME_SCALE=0.001
 * (honoured only under CRM_TEST): one hour of deadline is 3.6 s.
 * RECORD_BOOKING_FIXTURE=1 rewrites test/fixtures/booking-approval.history.json (plain payloads).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Booking } from '../booking.entity';
import type { Tenant } from '../../../test/support/app';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { book, createConfig, freshDay } from './support';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { RECORD, receivedMails, withApprovalEngine } from './approval-suite';
import { expectOk } from '../../../test/support/expect';

let h: EngineHarness;
let t: Tenant;
let smtp: LocalSmtp;
let ownerEmail: string;
withApprovalEngine('Booking approval', (s) => ({ h, t, smtp, ownerEmail } = s));

const row = (id: string) => h.app.runtime.deps.orm.em.fork().findOne(Booking, { _id: id }, { filters: false });
const mailsTo = (address: string) => receivedMails(smtp, address);
const describeRun = (workflowId: string) => h.client.workflow.getHandle(workflowId).describe();
const runStatus = async (workflowId: string) => (await describeRun(workflowId)).status.name;
const untilRun = (workflowId: string, status: string, ms = 20_000) =>
  waitFor(async () => (await runStatus(workflowId)) === status, ms, `${workflowId} to be ${status}`);
const untilRow = (id: string, status: string, ms = 30_000) =>
  waitFor(async () => ((await row(id))?.status === status ? row(id) : null), ms, `booking ${id} to be ${status}`);
const slotsOf = async (configId: string, day: string) =>
  (
    (await t.http.get(`/api/v1/bookings/available-slots?configId=${configId}&startDate=${day}&endDate=${day}`)).body
      .data.slots as { start: string }[]
  ).map((s) => s.start);

async function pending(over: Record<string, unknown> = {}, configOver: Record<string, unknown> = {}) {
  const c = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 24, ...configOver });
  const day = freshDay();
  const res = await book(t.http, c._id, `${day}T10:00:00Z`, over);
  expect(res.status).toBe(201);
  return { config: c, day, booking: res.body.data };
}

it('approve by update: pending holds the slot, approvers are e-mailed, the update answers approved, the attendee gets the invite', async () => {
  const { config, day, booking } = await pending();
  expect(booking).toMatchObject({
    status: 'pending',
    approvalWorkflowId: `booking-approval:${t.workspaceId}:${booking._id}`,
  });
  expect(Date.parse(booking.approvalDeadlineAt)).toBeGreaterThan(Date.now());
  expect(await slotsOf(config._id, day)).not.toContain(`${day}T10:00:00.000Z`);
  const d = await describeRun(booking.approvalWorkflowId);
  expect(d.status.name).toBe('RUNNING');
  expect(d.type).toBe('bookingApprovalWorkflow');
  expect(await d.staticSummary()).toContain(`Booking approval ${booking._id}`);
  const request = await waitFor(
    async () => mailsTo(ownerEmail).find((m) => m.raw.includes(booking._id)),
    20_000,
    'the approver notice',
  );
  expect(request.headers.subject).toContain('Booking awaiting approval');
  const received = await waitFor(
    async () => mailsTo(booking.attendeeInfo.email)[0],
    20_000,
    'the request-received e-mail',
  );
  expect(received.headers.subject).toContain('Booking request received');
  expect(received.raw).not.toContain('text/calendar');

  const res = await t.http.post(`/api/v1/bookings/${booking._id}/approve`, { notes: 'See you' });
  expectOk(res, {
    status: 'approved',
    decisionNotes: 'See you',
    decidedBy: (await t.http.get('/api/v1/whoami')).body.data.user._id,
  });
  await untilRun(booking.approvalWorkflowId, 'COMPLETED');
  expect((await t.http.post(`/api/v1/bookings/${booking._id}/approve`, {})).status).toBe(409);
  expect((await t.http.post(`/api/v1/bookings/${booking._id}/reject`, {})).status).toBe(409);
  expect(await slotsOf(config._id, day)).not.toContain(`${day}T10:00:00.000Z`);
  const invite = await waitFor(
    async () => mailsTo(booking.attendeeInfo.email).find((m) => m.headers.subject?.startsWith('Confirmed')),
    20_000,
    'the approval e-mail',
  );
  expect(invite.raw).toContain('METHOD:REQUEST');
  // Only ids and times in the workflow's history: no attendee e-mail address.
  const history = await h.client.workflow.getHandle(booking.approvalWorkflowId).fetchHistory();
  const json = historyToJSON(history);
  expect(json).not.toContain(Buffer.from(booking.attendeeInfo.email).toString('base64'));
  if (RECORD)
    writeFileSync(
      path.join(__dirname, '../../../test/fixtures/booking-approval.history.json'),
      `${JSON.stringify(JSON.parse(json), null, 2)}\n`,
    );
}, 60_000);

it('reject by update frees the slot and tells the attendee; a member key may decide (write scope)', async () => {
  const { config, day, booking } = await pending();
  const member = await h.app.key(t.workspaceId, ['read', 'write'], 'member');
  const res = await member.post(`/api/v1/bookings/${booking._id}/reject`, { reason: 'Fully booked' });
  expectOk(res, { status: 'rejected', rejectionReason: 'Fully booked' });
  expect(await slotsOf(config._id, day)).toContain(`${day}T10:00:00.000Z`);
  await untilRun(booking.approvalWorkflowId, 'COMPLETED');
  const mail = await waitFor(
    async () => mailsTo(booking.attendeeInfo.email).find((m) => m.headers.subject?.startsWith('Booking declined')),
    20_000,
    'the rejection e-mail',
  );
  expect(mail.raw).toContain('Fully booked');
  expect((await t.http.post(`/api/v1/bookings/${booking._id}/cancel`, {})).status).toBe(409);
  expect((await t.http.post('/api/v1/bookings/0123456789abcdef01234567/approve', {})).status).toBe(404);
}, 60_000);

it('cancel of a pending booking frees the slot and ends the run; approving it afterwards is 409', async () => {
  const { config, day, booking } = await pending();
  expect((await t.http.post(`/api/v1/bookings/${booking._id}/cancel`, {})).status).toBe(200);
  await untilRun(booking.approvalWorkflowId, 'COMPLETED');
  expect(await h.client.workflow.getHandle(booking.approvalWorkflowId).result()).toBe('closed');
  expect((await t.http.post(`/api/v1/bookings/${booking._id}/approve`, {})).status).toBe(409);
  expect(await slotsOf(config._id, day)).toContain(`${day}T10:00:00.000Z`);
}, 40_000);

it('reminders on a durable timer until someone decides', async () => {
  // Deadline 3 h = 10.8 s, reminders 2 h and 1 h before it (3.6 s and 7.2 s after the request).
  const { booking } = await pending({}, { approvalDeadlineHours: 3, approvalReminderHours: [2, 1] });
  await waitFor(
    async () =>
      mailsTo(ownerEmail).some((m) => m.raw.includes(booking._id) && m.headers.subject?.startsWith('Reminder:')),
    20_000,
    'a reminder',
  );
  expect((await t.http.post(`/api/v1/bookings/${booking._id}/approve`, {})).status).toBe(200);
  await untilRun(booking.approvalWorkflowId, 'COMPLETED');
}, 40_000);

it('the deadline passes while no worker runs: the restarted worker rejects (or approves) as configured and the attendee is told', async () => {
  // Deadline 2 h = 7.2 s.
  const rejecting = await pending({}, { approvalDeadlineHours: 2, onApprovalTimeout: 'reject' });
  const approving = await pending({}, { approvalDeadlineHours: 2, onApprovalTimeout: 'approve' });
  await waitFor(
    async () => mailsTo(ownerEmail).some((m) => m.raw.includes(approving.booking._id)),
    20_000,
    'the approver notices',
  );
  await h.stopWorker();
  await new Promise((r) =>
    setTimeout(r, Math.max(0, Date.parse(approving.booking.approvalDeadlineAt) - Date.now()) + 1500),
  );
  // Past the deadline with no worker: nothing decided yet, the slot still held.
  expect((await row(rejecting.booking._id))!.status).toBe('pending');
  expect(await slotsOf(rejecting.config._id, rejecting.day)).not.toContain(`${rejecting.day}T10:00:00.000Z`);
  await h.startWorker();
  const rejected = await untilRow(rejecting.booking._id, 'rejected');
  expect(rejected!.rejectionReason).toBe('approval deadline passed');
  expect(rejected!.decidedBy).toBeNull();
  await untilRow(approving.booking._id, 'approved');
  await untilRun(rejecting.booking.approvalWorkflowId, 'COMPLETED');
  expect(await h.client.workflow.getHandle(rejecting.booking.approvalWorkflowId).result()).toBe('rejected');
  expect(await slotsOf(rejecting.config._id, rejecting.day)).toContain(`${rejecting.day}T10:00:00.000Z`);
  await waitFor(
    async () =>
      mailsTo(rejecting.booking.attendeeInfo.email).find((m) => m.headers.subject?.startsWith('Booking declined')),
    20_000,
    'the timeout rejection e-mail',
  );
  await waitFor(
    async () => mailsTo(approving.booking.attendeeInfo.email).find((m) => m.headers.subject?.startsWith('Confirmed')),
    20_000,
    'the timeout approval e-mail',
  );
  expect((await t.http.post(`/api/v1/bookings/${rejecting.booking._id}/approve`, {})).status).toBe(409);
}, 90_000);
