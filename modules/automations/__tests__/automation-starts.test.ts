import { EntityManager } from '@mikro-orm/core';
import { ScheduleNotFoundError } from '@temporalio/client';
import { Automation } from '../automation.entity';
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { automationScheduleId } from '../automation-ids.pure';
import { secretMatches } from '../../../platform/shared/secret-match';
import { reconcileSchedules } from '../engine/schedules';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { activitiesOf, engineSuite } from '../../../test/support/engine-suite';
import { expectError } from '../../../test/support/expect';

const suite = engineSuite('Starts');

const webhookGraph = (config: Record<string, unknown>) =>
  chainGraph({ triggerType: 'webhook', config }, [
    action('create_note', { noteContent: 'Order {{webhookData.order.id}} for {{lead.title}}' }),
  ]);

describe('POST /api/webhooks/automation/:automationId', () => {
  it('starts the run with the body as webhookData and the mapped lead loaded; answers 202', async () => {
    const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Hooked' })).body.data;
    const id = await createAutomation(
      suite.t.http,
      webhookGraph({ secret: 's3cret-value', entityMapping: { entityType: 'Lead', entityIdField: 'order.leadId' } }),
    );
    const res = await suite.h.app.anonymous.post(
      `/api/webhooks/automation/${id}`,
      { order: { id: 'A-17', leadId: lead._id } },
      { headers: { 'x-webhook-secret': 's3cret-value' } },
    );
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ executionId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'queued' });
    const done = await suite.h.waitForExecution(res.body.data.executionId);
    expect(done).toMatchObject({ status: 'completed', triggerType: 'webhook', entityType: 'lead', entityId: lead._id });
    expect(done.context.webhookData).toEqual({ order: { id: 'A-17', leadId: lead._id } });
    const notes = await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(Note, {
      leadRef: lead._id,
    });
    expect(notes.map((n) => n.content)).toEqual(['Order A-17 for Hooked']);
  });

  it('the trigger secret is write-only: reads mask it, a PUT of the masked value keeps it, a new value replaces it', async () => {
    const id = await createAutomation(suite.t.http, webhookGraph({ secret: 'hook-secret-9876' }));
    const secretOfNodes = (nodes: { type: string; data: { config?: { secret?: string } } }[]) =>
      nodes.find((n) => n.type === 'trigger')!.data.config?.secret;
    const read = (await suite.t.http.get(`/api/v1/automations/${id}`)).body.data;
    expect(secretOfNodes(read.nodes)).toBe('****9876');
    const listed = (await suite.t.http.get('/api/v1/automations')).body.data.find((a: { _id: string }) => a._id === id);
    expect(secretOfNodes(listed.nodes)).toBe('****9876');
    const fire = (secret: string) =>
      suite.h.app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { order: { id: 1 } },
        { headers: { 'x-webhook-secret': secret } },
      );

    // Round trip: what a client read, written back unchanged (name edited), keeps the real secret.
    const put = await suite.t.http.put(`/api/v1/automations/${id}`, {
      name: 'Renamed hook',
      nodes: read.nodes,
      edges: read.edges,
    });
    expect(put.status).toBe(200);
    expect(secretOfNodes(put.body.data.nodes)).toBe('****9876');
    expect(put.body.data.version).toBe(read.version); // nothing in the definition changed
    expect((await fire('****9876')).status).toBe(401);
    const ok = await fire('hook-secret-9876');
    expect(ok.status).toBe(202);
    const detail = (await suite.t.http.get(`/api/v1/automations/executions/${ok.body.data.executionId}`)).body.data;
    expect(secretOfNodes(detail.graph.nodes)).toBe('****9876');
    expect(JSON.stringify(detail)).not.toContain('hook-secret-9876');

    const replaced = read.nodes.map((n: { type: string; data: Record<string, unknown> }) =>
      n.type === 'trigger' ? { ...n, data: { ...n.data, config: { secret: 'short' } } } : n,
    );
    expect(
      (await suite.t.http.put(`/api/v1/automations/${id}`, { nodes: replaced })).body.data.nodes.find(
        (n: { type: string }) => n.type === 'trigger',
      ).data.config.secret,
    ).toBe('****');
    expect((await fire('hook-secret-9876')).status).toBe(401);
    expect((await fire('short')).status).toBe(202);
  });

  it('a changed secret, a deactivation and a reactivation count at once (the per-process cache is checked on every call)', async () => {
    const id = await createAutomation(suite.t.http, webhookGraph({ secret: 'first-secret' }));
    const fire = (secret: string) =>
      suite.h.app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { a: 1 },
        { headers: { 'x-webhook-secret': secret } },
      );
    expect((await fire('first-secret')).status).toBe(202); // now cached with the first secret
    const nodes = (await suite.t.http.get(`/api/v1/automations/${id}`)).body.data.nodes.map(
      (n: { type: string; data: Record<string, unknown> }) =>
        n.type === 'trigger' ? { ...n, data: { ...n.data, config: { secret: 'second-secret' } } } : n,
    );
    expect((await suite.t.http.put(`/api/v1/automations/${id}`, { nodes })).status).toBe(200);
    expect((await fire('second-secret')).status).toBe(202);
    expect((await fire('first-secret')).status).toBe(401);
    expect((await suite.t.http.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(false);
    expect((await fire('second-secret')).status).toBe(404);
    expect((await suite.t.http.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(true);
    expect((await fire('second-secret')).status).toBe(202);
    expect(await suite.h.executionsOf(id)).toHaveLength(3);
  });

  it('a repeated call reads the automation from the cache (no ORM load), and still runs', async () => {
    const id = await createAutomation(suite.t.http, webhookGraph({ secret: 'cached-secret' }));
    const fire = () =>
      suite.h.app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { a: 1 },
        { headers: { 'x-webhook-secret': 'cached-secret' } },
      );
    expect((await fire()).status).toBe(202);
    const loads = jest.spyOn(EntityManager.prototype, 'findOne');
    try {
      for (let i = 0; i < 3; i++) expect((await fire()).status).toBe(202);
      expect(loads.mock.calls.filter(([entity]) => entity === Automation).length).toBe(0);
    } finally {
      loads.mockRestore();
    }
    expect(await suite.h.executionsOf(id)).toHaveLength(4);
  });

  it('an Idempotency-Key re-delivery starts nothing new', async () => {
    const id = await createAutomation(suite.t.http, webhookGraph({ secret: 'k' }));
    const send = () =>
      suite.h.app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { order: { id: 1 } },
        { headers: { 'x-webhook-secret': 'k', 'idempotency-key': 'delivery-42' } },
      );
    const [a, b] = [await send(), await send()];
    expect(a.status).toBe(202);
    expect(b.body.data.executionId).toBe(a.body.data.executionId);
    expect(await suite.h.executionsOf(id)).toHaveLength(1);
  });

  it.each([
    ['a wrong secret', { 'x-webhook-secret': 'nope' }],
    ['no secret header', {}],
    ['a secret differing only in case', { 'x-webhook-secret': 'S3CRET' }],
  ])('%s is 401 and nothing runs', async (_label, headers) => {
    const id = await createAutomation(suite.t.http, webhookGraph({ secret: 's3cret' }));
    const res = await suite.h.app.anonymous.post(`/api/webhooks/automation/${id}`, { a: 1 }, { headers });
    expectError(res, 401);
    await new Promise((r) => setTimeout(r, 200));
    expect(await suite.h.executionsOf(id)).toHaveLength(0);
  });

  it('a webhook trigger without a secret refuses every call (401)', async () => {
    const id = await createAutomation(suite.t.http, webhookGraph({}));
    const res = await suite.h.app.anonymous.post(`/api/webhooks/automation/${id}`, { a: 1 });
    expectError(res, 401, 'no secret configured');
    expect(await suite.h.executionsOf(id)).toHaveLength(0);
  });

  it('unknown, malformed, inactive and non-webhook automations are the same 404', async () => {
    const inactive = await createAutomation(suite.t.http, webhookGraph({ secret: 'x' }), { active: false });
    const other = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_created' }, [action('create_note', { noteContent: 'x' })]),
    );
    for (const id of ['0123456789abcdef01234567', 'not-an-id', inactive, other]) {
      const res = await suite.h.app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { a: 1 },
        { headers: { 'x-webhook-secret': 'x' } },
      );
      expect([id, res.status, res.body.error]).toEqual([id, 404, 'automation not found']);
    }
  });

  it.each([
    ['a JSON array body', '[1,2]', 'application/json', 400],
    ['a form body', 'a=1', 'application/x-www-form-urlencoded', 400],
  ])('%s is refused', async (_label, raw, type, status) => {
    const id = await createAutomation(suite.t.http, webhookGraph({ secret: 'k' }));
    const res = await suite.h.app.anonymous.post(`/api/webhooks/automation/${id}`, undefined, {
      raw,
      headers: { 'content-type': type, 'x-webhook-secret': 'k' },
    });
    expect(res.status).toBe(status);
  });

  it('a mapped entity id that names no record is a 400 and nothing runs', async () => {
    const id = await createAutomation(
      suite.t.http,
      webhookGraph({ secret: 'k', entityMapping: { entityType: 'Lead', entityIdField: 'leadId' } }),
    );
    const res = await suite.h.app.anonymous.post(
      `/api/webhooks/automation/${id}`,
      { leadId: '0123456789abcdef01234567' },
      { headers: { 'x-webhook-secret': 'k' } },
    );
    expect(res.status).toBe(400);
    expect(await suite.h.executionsOf(id)).toHaveLength(0);
  });

  it('is rate-limited per automation (429 with Retry-After)', async () => {
    const app2 = await (
      await import('../../../test/support/app')
    ).startTestApp({ TEMPORAL_TASK_QUEUE: suite.h.taskQueue, RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const tenant = await app2.tenant('Webhook limits');
      const id = await createAutomation(tenant.http, webhookGraph({ secret: 'k' }));
      const send = () =>
        app2.anonymous.post(`/api/webhooks/automation/${id}`, {}, { headers: { 'x-webhook-secret': 'k' } });
      expect((await send()).status).toBe(202);
      expect((await send()).status).toBe(202);
      const third = await send();
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await app2.close();
    }
  });

  it('compares secrets by digest (any length, no early exit)', () => {
    expect(secretMatches('abc', 'abc')).toBe(true);
    expect(secretMatches('abcd', 'abc')).toBe(false);
    expect(secretMatches(undefined, 'abc')).toBe(false);
    expect(secretMatches('', '')).toBe(false);
  });
});

describe('scheduled triggers become Temporal Schedules', () => {
  const scheduled = (config: Record<string, unknown>) =>
    chainGraph({ triggerType: 'scheduled', config }, [
      action('create_record', { recordType: 'lead', fieldValues: { title: 'From the schedule' } }),
    ]);

  async function describeSchedule(workspaceId: string, automationId: string) {
    try {
      return await suite.h.client.schedule.getHandle(automationScheduleId(workspaceId, automationId)).describe();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return null;
      throw err;
    }
  }

  it('created on activation (workspace time zone), updated on edit, removed on deactivation and delete', async () => {
    const tenant = await suite.h.app.tenant('Schedules');
    const d = suite.h.dispatcher([tenant.workspaceId]);
    const id = await createAutomation(tenant.http, scheduled({ frequency: 'daily', time: '09:30' }));
    await d.drainOnce();
    const created = await describeSchedule(tenant.workspaceId, id);
    expect(created?.spec.calendars?.[0]).toMatchObject({
      hour: [{ start: 9, end: 9, step: 1 }],
      minute: [{ start: 30, end: 30, step: 1 }],
    });
    expect(created?.spec.timezone).toBe('Europe/Copenhagen');
    expect(created?.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'automationScheduleTickWorkflow',
      taskQueue: suite.h.taskQueue,
    });
    expect(await created?.memo).toMatchObject({ workspaceId: tenant.workspaceId });

    const nodes = scheduled({ frequency: 'interval', intervalMinutes: 15 });
    expect((await tenant.http.put(`/api/v1/automations/${id}`, nodes)).status).toBe(200);
    await d.drainOnce();
    const updated = await describeSchedule(tenant.workspaceId, id);
    expect(updated?.spec.intervals).toMatchObject([{ every: 15 * 60_000 }]);

    expect((await tenant.http.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(false);
    await d.drainOnce();
    expect(await describeSchedule(tenant.workspaceId, id)).toBeNull();

    expect((await tenant.http.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(true);
    await d.drainOnce();
    expect(await describeSchedule(tenant.workspaceId, id)).not.toBeNull();
    expect((await tenant.http.delete(`/api/v1/automations/${id}`)).status).toBe(200);
    await d.drainOnce();
    expect(await describeSchedule(tenant.workspaceId, id)).toBeNull();
  });

  it('reconcile (worker start) recreates a lost schedule and removes one whose automation is gone', async () => {
    const tenant = await suite.h.app.tenant('Reconcile');
    const d = suite.h.dispatcher([tenant.workspaceId]);
    const kept = await createAutomation(tenant.http, scheduled({ frequency: 'hourly', time: '00:45' }));
    const gone = await createAutomation(tenant.http, scheduled({ frequency: 'daily', time: '06:00' }));
    await d.drainOnce();
    // Behind the engine's back: one schedule lost (e.g. Temporal data reset), one automation row
    // removed without its event (e.g. a restored database).
    await suite.h.client.schedule.getHandle(automationScheduleId(tenant.workspaceId, kept)).delete();
    await suite.h.app.runtime.deps.orm.em.fork().getConnection().execute('delete from automation where id = ?', [gone]);
    await waitFor(
      async () =>
        (await suite.h.workflows.listScheduleIds('automation-schedule')).includes(
          automationScheduleId(tenant.workspaceId, gone),
        )
          ? true
          : null,
      15_000,
      'the schedule list to show the stray schedule',
    );

    const result = await reconcileSchedules(suite.h.engine, { workspaceIds: [tenant.workspaceId] });
    expect(result).toEqual({ synced: 1, removed: 1, failed: 0 });
    expect((await describeSchedule(tenant.workspaceId, kept))?.spec.calendars?.[0]).toMatchObject({
      minute: [{ start: 45, end: 45, step: 1 }],
    });
    expect(await describeSchedule(tenant.workspaceId, gone)).toBeNull();
    // Idempotent: a second pass changes nothing.
    expect((await reconcileSchedules(suite.h.engine, { workspaceIds: [tenant.workspaceId] })).removed).toBe(0);
  });

  it('reaching maxTotalRuns deactivates a scheduled automation and removes its schedule', async () => {
    const tenant = await suite.h.app.tenant('Last tick');
    const d = suite.h.dispatcher([tenant.workspaceId]);
    const id = await createAutomation(tenant.http, {
      ...scheduled({ frequency: 'hourly', time: '00:15' }),
      rateLimits: { maxTotalRuns: 1 },
    });
    await d.drainOnce();
    expect(await describeSchedule(tenant.workspaceId, id)).not.toBeNull();
    await suite.h.client.schedule.getHandle(automationScheduleId(tenant.workspaceId, id)).trigger();
    await waitFor(async () => (await suite.h.executionsOf(id)).length === 1, 15_000, 'the run');
    expect((await tenant.http.get(`/api/v1/automations/${id}`)).body.data).toMatchObject({
      isActive: false,
      deactivatedReason: 'maxTotalRuns reached (1 runs)',
    });
    await d.drainOnce();
    expect(await describeSchedule(tenant.workspaceId, id)).toBeNull();
  });

  it('a tick starts an execution through the engine, once per tick time', async () => {
    const tenant = await suite.h.app.tenant('Ticks');
    const d = suite.h.dispatcher([tenant.workspaceId]);
    const id = await createAutomation(tenant.http, scheduled({ frequency: 'interval', intervalMinutes: 30 }));
    await d.drainOnce();
    const handle = suite.h.client.schedule.getHandle(automationScheduleId(tenant.workspaceId, id));
    await handle.trigger();
    const [e] = await waitFor(
      async () => ((await suite.h.executionsOf(id)).length ? suite.h.executionsOf(id) : null),
      15_000,
      'a scheduled execution',
    );
    expect(e).toMatchObject({ triggerType: 'scheduled', triggerKey: expect.stringMatching(/^tick:\d{4}-\d\d-\d\dT/) });
    const done = await suite.h.waitForExecution(e!._id);
    expect(done.status).toBe('completed');
    expect((await suite.h.stepsOf(e!._id)).map((s) => s.nodeId)).toEqual(['trigger', 'n1']);
    await handle.delete();
    // A re-run tick (activity retry, overlapping delivery) for the same time starts nothing new.
    const acts = await activitiesOf(suite.h);
    const scheduledAt = e!.triggerKey.slice('tick:'.length);
    expect(
      await acts.startScheduledExecution({ workspaceId: tenant.workspaceId, automationId: id, scheduledAt }),
    ).toEqual({ status: 'existing', executionId: e!._id });
    expect(await suite.h.executionsOf(id)).toHaveLength(1);
  });
});
