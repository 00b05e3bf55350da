/**
 * Durable intake of enrollments: POST /sequences/:id/enroll answers 201 after one commit (rows
 * `active`, queued for their workflow); the starter that lives with the worker starts them. Enrollments
 * accepted while no worker runs start exactly once when it returns; a bulk of 500 answers without
 * waiting on the engine; a retried request (same Idempotency-Key) never enrolls twice; a workspace
 * with too many enrollments waiting to start is answered 429 with Retry-After.
 */
import { Lead } from '../../leads/lead.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { createRecord } from '../../../platform/shared/records';
import { SequenceEnrollment, SequenceStep } from '../sequence.entity';
import { CalendarEvent } from '../../calendar/calendar-event.entity';
import type { Tenant } from '../../../test/support/app';
import { startEngineHarness, waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { workspaceCtx } from '../../../test/support/automations';
import { createSequence, line, waitNode } from '../../../test/support/sequences';
import { expectCreated } from '../../../test/support/expect';

const CAP = 500;
let h: EngineHarness;
let t: Tenant;
beforeAll(async () => {
  h = await startEngineHarness({ INTAKE_MAX_QUEUED_PER_WORKSPACE: String(CAP), SEQUENCE_WAIT_SCALE: '0.001' });
  // Bundle the workflows once now; each test starts without a worker (and so without a starter).
  await h.startWorker();
  await h.stopWorker();
  t = await h.app.tenant('Enrollment intake');
}, 120_000);
afterAll(() => h?.close());
afterEach(() => h.stopWorker());

const em = (workspaceId = t.workspaceId) => forkForWorkspace(h.app.runtime.deps.orm.em, workspaceId);
const enrollmentsOf = (entityId: string) => em().find(SequenceEnrollment, { entityId });
const workflowStatus = (enrollmentId: string, workspaceId = t.workspaceId) =>
  h.client.workflow
    .getHandle(`sequence-enrollment:${workspaceId}:${enrollmentId}`)
    .describe()
    .then(
      (d) => d.status.name,
      () => null,
    );
const taskSequence = (http = t.http) =>
  createSequence(http, line([{ type: 'create_task', data: { title: 'Call {{lead.title}}', dueInDays: 0 } }]));
const lead = async (title: string) => (await t.http.post('/api/v1/leads', { title })).body.data._id as string;
/** The calendar events (activityType task) the sequence's create_task made for the lead of this title. */
const tasksFor = (title: string) => em().find(CalendarEvent, { title: `Call ${title}` });

describe('durable intake of enrollments', () => {
  it('an enrollment accepted while the worker is down is active with no workflow, then starts exactly once', async () => {
    const sequenceId = await taskSequence();
    const title = 'Queued Bikes';
    const leadId = await lead(title);
    const res = await t.http.post(`/api/v1/sequences/${sequenceId}/enroll`, { entityType: 'Lead', entityId: leadId });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      ok: true,
      action: 'enrolled',
      enrollmentId: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const enrollmentId = res.body.data.enrollmentId as string;

    await new Promise((r) => setTimeout(r, 1000));
    const shown = await t.http.get(`/api/v1/sequences/enrollments/${enrollmentId}`);
    expect(shown.body.data).toMatchObject({ status: 'active', currentNodeId: 'start' });
    expect(await workflowStatus(enrollmentId)).toBeNull();
    // A pause before the workflow runs says so and may be retried; nothing changed.
    const pause = await t.http.post(`/api/v1/sequences/enrollments/${enrollmentId}/pause`, {});
    expect(pause.status).toBe(503);
    expect(Number(pause.headers.get('retry-after'))).toBeGreaterThan(0);

    await h.startWorker();
    await waitFor(
      async () => (await em().findOne(SequenceEnrollment, { _id: enrollmentId }))?.status === 'completed',
      30_000,
      'the queued enrollment to complete',
    );
    await waitFor(async () => (await workflowStatus(enrollmentId)) === 'COMPLETED', 10_000, 'the workflow to close');
    expect(await enrollmentsOf(leadId)).toHaveLength(1);
    expect(await tasksFor(title)).toHaveLength(1);
    const steps = await em().find(SequenceStep, { enrollmentId }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
    expect(steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['s1', 'completed'],
    ]);
  }, 60_000);

  it('unenrolling before the workflow starts ends the enrollment; the workflow never runs a step', async () => {
    const sequenceId = await taskSequence();
    const title = 'Unenrolled early';
    const leadId = await lead(title);
    const res = await t.http.post(`/api/v1/sequences/${sequenceId}/enroll`, { entityType: 'Lead', entityId: leadId });
    const enrollmentId = res.body.data.enrollmentId as string;
    const out = await t.http.post(`/api/v1/sequences/enrollments/${enrollmentId}/unenroll`);
    expect(out.status).toBe(200);
    expect((await t.http.get(`/api/v1/sequences/enrollments/${enrollmentId}`)).body.data).toMatchObject({
      status: 'exited',
      exitReason: 'manual',
    });
    await h.startWorker();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await workflowStatus(enrollmentId)).toBeNull();
    expect(await tasksFor(title)).toHaveLength(0);
  }, 60_000);

  it('a retry with the same Idempotency-Key enrolls once, also when the stored answer was lost', async () => {
    // block_with_restart (the default): a second run of the request would restart the enrollment.
    const sequenceId = await taskSequence();
    const title = 'Retried';
    const leadId = await lead(title);
    const send = () =>
      t.http.post(
        `/api/v1/sequences/${sequenceId}/enroll`,
        { entityType: 'Lead', entityId: leadId },
        { headers: { 'idempotency-key': `enroll-${leadId}` } },
      );
    const first = await send();
    expect(first.status).toBe(201);
    const replay = await send();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    // The answer was not kept (a 5xx after the commit released the key, or the process died and the
    // lock was taken over): the retry runs again and must answer the enrollment its first run made.
    await h.app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute('delete from idempotency_key where workspace_id = ?', [t.workspaceId], 'run');
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body).toEqual(first.body);
    const rows = await enrollmentsOf(leadId);
    expect(rows.map((r) => [r._id, r.status])).toEqual([[first.body.data.enrollmentId, 'active']]);
    await h.startWorker();
    await waitFor(async () => (await tasksFor(title)).length === 1, 30_000, 'the task');
  }, 60_000);

  it(`a bulk of 500 answers without waiting on the engine and all start; at ${CAP} waiting the workspace gets 429`, async () => {
    const b = await h.app.tenant('Enrollment intake bulk');
    const ctx = await workspaceCtx(h.app, b.http);
    const leads = Array.from({ length: 500 }, (_, i) => createRecord(ctx, Lead, { title: `Bulk ${i}` }));
    await ctx.em.persist(leads).flush();
    const sequenceId = await createSequence(
      b.http,
      line([
        waitNode({ waitAmount: 1, waitUnit: 'minutes' }),
        { type: 'create_task', data: { title: 'Bulk', dueInDays: 0 } },
      ]),
    );
    const entityIds = leads.map((l) => l._id);
    const started = Date.now();
    const res = await b.http.post(`/api/v1/sequences/${sequenceId}/enroll`, { entityType: 'Lead', entityIds });
    const tookMs = Date.now() - started;
    expectCreated(res, { enrolled: 500, failed: 0 });
    // One transaction, no engine call: well under what 500 starts take (seconds on this machine).
    expect(tookMs).toBeLessThan(3000);
    const queued = () => em(b.workspaceId).count(SequenceEnrollment, { sequenceId, startQueued: true });
    expect(await queued()).toBe(500);

    const extra = createRecord(ctx, Lead, { title: 'One too many' });
    await ctx.em.persist(extra).flush();
    const refused = await b.http.post(`/api/v1/sequences/${sequenceId}/enroll`, {
      entityType: 'Lead',
      entityId: extra._id,
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatch(/too many enrollments of this workspace are waiting to start/);

    await h.startWorker();
    await waitFor(async () => (await queued()) === 0, 90_000, 'all 500 to start');
    // Every workflow started (none refused); they complete at engine speed.
    expect(await em(b.workspaceId).count(SequenceEnrollment, { sequenceId, status: 'exited' })).toBe(0);
    const sample = res.body.data.results[499].enrollmentId as string;
    expect(['RUNNING', 'COMPLETED']).toContain(await workflowStatus(sample, b.workspaceId));
    await new Promise((r) => setTimeout(r, 300));
    const later = await b.http.post(`/api/v1/sequences/${sequenceId}/enroll`, {
      entityType: 'Lead',
      entityId: extra._id,
    });
    expect(later.status).toBe(201);
  }, 180_000);
});
