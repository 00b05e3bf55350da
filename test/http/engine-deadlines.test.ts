/**
 * API calls that wait on a workflow update answer within the engine deadline (ENGINE_DEADLINE_MS,
 * 3 s by default) while no worker runs: 503 `unavailable` with Retry-After and details.recorded;
 * the recorded command takes effect once when a worker returns, and a retry with the same
 * Idempotency-Key then answers the outcome. The worker is this file's in-process one, stopped and
 * started again; the Temporal server keeps running (a Temporal outage: faults-temporal.test.ts).
 */
import { OutboxEvent } from '../../platform/outbox/outbox-event.entity';
import { Booking } from '../../modules/bookings/booking.entity';
import { SequenceEnrollment } from '../../modules/sequences/sequence.entity';
import { waitFor } from '../support/automation-engine';
import { book, createConfig, freshDay } from '../../modules/bookings/__tests__/support';
import { createSequence, emailNode, line, waitNode } from '../support/sequences';
import { engineSuite } from '../support/engine-suite';
import { expectOk } from '../support/expect';

const suite = engineSuite('Engine deadlines', {
  env: { BOOKING_TIME_SCALE: '0.001', SEQUENCE_WAIT_SCALE: '0.001' },
  timeoutMs: 120_000,
});
beforeAll(() => suite.h.dispatcher([suite.t.workspaceId]).start());

const orm = () => suite.h.app.runtime.deps.orm.em.fork();
const eventsOf = async (entityId: string, type: string) =>
  orm().count(OutboxEvent, { entityId, type }, { filters: false });
const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

/** A POST made while the worker is down: 503 unavailable within 5 s, recorded. */
async function recordedWithoutWorker(path: string, body: unknown, key: string) {
  const started = Date.now();
  const res = await suite.t.http.post(path, body, withKey(key));
  const took = Date.now() - started;
  expect(res.status).toBe(503);
  expect(took).toBeLessThan(5000);
  expect(took).toBeGreaterThanOrEqual(2500); // it did wait for the engine (the 3 s deadline less the signal's reserve)
  expect(res.body).toMatchObject({ code: 'unavailable', details: { recorded: true } });
  expect(res.body.error).toContain('recorded');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  return res;
}

describe('booking approve while the worker is down', () => {
  it('503 recorded within 5 s; the approval lands once when the worker returns; the same key then answers 200', async () => {
    const config = await createConfig(suite.t.http, { requiresApproval: true, approvalDeadlineHours: 24 });
    const created = await book(suite.t.http, config._id, `${freshDay()}T10:00:00Z`);
    expect(created.status).toBe(201);
    const id = created.body.data._id as string;
    const path = `/api/v1/bookings/${id}/approve`;
    await suite.h.stopWorker();
    try {
      await recordedWithoutWorker(path, { notes: 'ok' }, `approve-${id}`);
      // The same request again while still down: recorded again, still one command.
      await recordedWithoutWorker(path, { notes: 'ok' }, `approve-${id}`);
      expect((await orm().findOne(Booking, { _id: id }, { filters: false }))!.status).toBe('pending');
    } finally {
      await suite.h.startWorker();
    }
    const row = await waitFor(
      async () => {
        const b = await orm().findOne(Booking, { _id: id }, { filters: false });
        return b?.status === 'approved' ? b : null;
      },
      30_000,
      'the recorded approval',
    );
    expect(row.decisionNotes).toBe('ok');
    await waitFor(async () => (await eventsOf(id, 'booking_approved')) > 0, 10_000, 'booking_approved');
    await new Promise((r) => setTimeout(r, 500));
    expect(await eventsOf(id, 'booking_approved')).toBe(1);
    const again = await suite.t.http.post(path, { notes: 'ok' }, withKey(`approve-${id}`));
    expectOk(again, { _id: id, status: 'approved', decisionNotes: 'ok' });
    // Another request (no key, or another key) is a new decision: the booking is no longer pending.
    expect((await suite.t.http.post(path, { notes: 'ok' })).status).toBe(409);
    expect((await suite.t.http.post(`/api/v1/bookings/${id}/reject`, {}, withKey(`reject-${id}`))).status).toBe(409);
    expect(await eventsOf(id, 'booking_approved')).toBe(1);
  }, 90_000);

  it('with the worker up the answer is the decision itself, well within the deadline', async () => {
    const config = await createConfig(suite.t.http, { requiresApproval: true, approvalDeadlineHours: 24 });
    const created = await book(suite.t.http, config._id, `${freshDay()}T11:00:00Z`);
    const started = Date.now();
    const res = await suite.t.http.post(`/api/v1/bookings/${created.body.data._id}/reject`, { reason: 'full' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('rejected');
    expect(Date.now() - started).toBeLessThan(3000);
  }, 30_000);
});

describe('sequence pause while the worker is down', () => {
  it('503 recorded within 5 s; paused once when the worker returns; the same key then answers 200', async () => {
    const l = await suite.t.http.post('/api/v1/leads', { title: 'Deadline lead' });
    const seqId = await createSequence(suite.t.http, line([waitNode({ waitDays: 30 }), emailNode()]));
    const enrolled = await suite.t.http.post(`/api/v1/sequences/${seqId}/enroll`, {
      entityType: 'Lead',
      entityId: l.body.data._id,
    });
    expect(enrolled.status).toBe(201);
    const id = enrolled.body.data.enrollmentId as string;
    const row = () => orm().findOne(SequenceEnrollment, { _id: id }, { filters: false });
    await waitFor(async () => (await row())?.currentNodeId === 's1', 20_000, 'the enrollment to wait');
    const base = `/api/v1/sequences/enrollments/${id}`;
    await suite.h.stopWorker();
    try {
      await recordedWithoutWorker(`${base}/pause`, {}, `pause-${id}`);
      expect((await row())!.status).toBe('active');
    } finally {
      await suite.h.startWorker();
    }
    await waitFor(async () => (await row())?.status === 'paused', 30_000, 'the recorded pause');
    const again = await suite.t.http.post(`${base}/pause`, {}, withKey(`pause-${id}`));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: { paused: true } });
    expect((await suite.t.http.post(`${base}/pause`, {}, withKey(`pause-2-${id}`))).status).toBe(409);
    await waitFor(async () => (await eventsOf(id, 'sequence_paused')) > 0, 10_000, 'sequence_paused');
    expect(await eventsOf(id, 'sequence_paused')).toBe(1);
    // Resume and unenroll with the worker up answer at once.
    expect((await suite.t.http.post(`${base}/resume`)).body).toEqual({ data: { resumed: true } });
    expect((await suite.t.http.post(`${base}/unenroll`)).body).toEqual({ data: { unenrolled: true } });
  }, 90_000);
});
