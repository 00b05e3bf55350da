import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { automationBody, insertExecution, insertStep, workspaceCtx } from '../../../test/support/automations';
import { eventsFor } from '../../../test/support/outbox';
import { AutomationExecution } from '../automation.entity';
import type { Ctx } from '../../../platform/context';
import { expectError } from '../../../test/support/expect';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const newAutomation = async (http: Tenant['http'], name = 'Flow'): Promise<string> =>
  (await http.post('/api/v1/automations', automationBody({ name }))).body.data._id;
const at = (minutesAgo: number): Date => new Date(Date.now() - minutesAgo * 60_000);
const sql = (query: string, params: unknown[]) => app.runtime.deps.orm.em.fork().getConnection().execute(query, params);

describe('GET /api/v1/automations/stats', () => {
  it('counts automations and executions of the workspace only, averaging finished durations', async () => {
    const t = await app.tenant();
    const empty = await t.http.get('/api/v1/automations/stats');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({
      totalAutomations: 0,
      activeAutomations: 0,
      totalExecutions: 0,
      executionsByStatus: { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 },
      avgDuration: null,
    });

    const a = await newAutomation(t.http, 'A');
    await newAutomation(t.http, 'B');
    await t.http.post(`/api/v1/automations/${a}/toggle`);
    const ctx = await workspaceCtx(app, t.http);
    await insertExecution(ctx, a, { status: 'running' });
    await insertExecution(ctx, a, { status: 'completed', durationMs: 1000 });
    await insertExecution(ctx, a, { status: 'completed', durationMs: 3000, isTest: true });
    await insertExecution(ctx, a, { status: 'failed', durationMs: 2000 });
    await insertExecution(ctx, a, { status: 'cancelled', durationMs: 501 });
    // Another workspace's runs never count.
    const other = await app.tenant();
    await insertExecution(await workspaceCtx(app, other.http), await newAutomation(other.http), {
      status: 'completed',
      durationMs: 999_999,
    });

    const res = await t.http.get('/api/v1/automations/stats');
    expect(res.body.data).toEqual({
      totalAutomations: 2,
      activeAutomations: 1,
      totalExecutions: 5,
      executionsByStatus: { queued: 0, running: 1, completed: 2, failed: 1, cancelled: 1 },
      avgDuration: Math.round((1000 + 3000 + 2000 + 501) / 4),
    });
  });
});

describe('executions', () => {
  let t: Tenant;
  let ctx: Ctx;
  let automationId: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    t = await app.tenant();
    ctx = await workspaceCtx(app, t.http);
    automationId = await newAutomation(t.http);
    const other = await newAutomation(t.http, 'Other');
    ids = {
      old: (await insertExecution(ctx, automationId, { status: 'completed', startedAt: at(30), durationMs: 1200 }))._id,
      failed: (
        await insertExecution(ctx, automationId, { status: 'failed', startedAt: at(20), error: 'SMTP not configured' })
      )._id,
      recent: (await insertExecution(ctx, automationId, { status: 'running', startedAt: at(10), isTest: true }))._id,
      other: (await insertExecution(ctx, other, { status: 'completed' }))._id,
    };
  });

  it("lists an automation's runs newest first without graph snapshot and context", async () => {
    const res = await t.http.get(`/api/v1/automations/${automationId}/executions`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 20, total: 3 });
    expect(res.body.data.map((e: any) => e._id)).toEqual([ids.recent, ids.failed, ids.old]);
    expect(res.body.data[0]).toEqual({
      _id: ids.recent,
      automationId,
      automationName: 'Welcome note',
      automationVersion: 1,
      status: 'running',
      triggerType: 'record_created',
      entityType: 'lead',
      entityId: '0123456789abcdef01234567',
      isTest: true,
      parentExecutionId: null,
      retryOf: null,
      retries: [],
      workflowId: `automation-execution:${t.workspaceId}:${ids.recent}`,
      startedAt: expect.any(String),
      finishedAt: null,
      durationMs: null,
      error: null,
    });
    expect(res.body.data[2]).toMatchObject({ status: 'completed', durationMs: 1200, finishedAt: expect.any(String) });
    const page2 = await t.http.get(`/api/v1/automations/${automationId}/executions?limit=2&page=2`);
    expect(page2.body.data.map((e: any) => e._id)).toEqual([ids.old]);
  });

  it('filters by status', async () => {
    const failed = await t.http.get(`/api/v1/automations/${automationId}/executions?status=failed`);
    expect(failed.body.total).toBe(1);
    expect(failed.body.data[0]).toMatchObject({ _id: ids.failed, error: 'SMTP not configured' });
    expect((await t.http.get(`/api/v1/automations/${automationId}/executions?status=cancelled`)).body).toMatchObject({
      data: [],
      total: 0,
    });
  });

  it.each([
    ['status=done', /status: must be one of queued, running, completed, failed, cancelled/],
    ['limit=101', /limit must be at most 100/],
    ['state=failed', /state/],
  ])('400 for ?%s', async (qs, message) => {
    expectError(await t.http.get(`/api/v1/automations/${automationId}/executions?${qs}`), 400, message);
  });

  it('404 for an unknown automation', async () => {
    expect((await t.http.get('/api/v1/automations/0123456789abcdef01234567/executions')).status).toBe(404);
  });

  it('returns one execution with context, graph snapshot and the step log in run order', async () => {
    const started = at(20);
    const second = new Date(started.getTime() + 2000);
    await insertStep(ctx, ids.failed, {
      nodeId: 'action_1',
      nodeType: 'action',
      actionType: 'send_email',
      status: 'failed',
      attempt: 3,
      startedAt: second,
      endedAt: second,
      input: { subject: 'Hi Ada' },
      error: 'SMTP not configured',
    });
    await insertStep(ctx, ids.failed, {
      nodeId: 'trigger_1',
      nodeType: 'trigger',
      startedAt: started,
      endedAt: started,
      output: { entityId: 'x' },
    });
    await insertStep(ctx, ids.failed, {
      nodeId: 'cond_1',
      nodeType: 'condition',
      startedAt: new Date(started.getTime() + 1000),
      handle: 'true',
      output: { met: true },
    });
    const res = await t.http.get(`/api/v1/automations/executions/${ids.failed}`);
    expect(res.status).toBe(200);
    const e = res.body.data;
    expect(e).toMatchObject({
      _id: ids.failed,
      automationId,
      status: 'failed',
      error: 'SMTP not configured',
      context: { lead: { title: 'Seeded' } },
    });
    expect(e.graph).toMatchObject({
      nodes: [{ id: 'trigger_1' }, { id: 'action_1' }],
      executionSettings: { failureBehavior: 'stop' },
    });
    expect(e.steps.map((s: any) => [s.nodeId, s.handle])).toEqual([
      ['trigger_1', null],
      ['cond_1', 'true'],
      ['action_1', null],
    ]);
    expect(e.steps[2]).toEqual({
      _id: expect.any(String),
      nodeId: 'action_1',
      nodeType: 'action',
      actionType: 'send_email',
      status: 'failed',
      attempt: 3,
      startedAt: second.toISOString(),
      endedAt: second.toISOString(),
      input: { subject: 'Hi Ada' },
      output: null,
      error: 'SMTP not configured',
      handle: null,
    });
    expect((await t.http.get(`/api/v1/automations/executions/${ids.old}`)).body.data.steps).toEqual([]);
  });

  it('keeps the graph snapshot a run started with when the automation is edited', async () => {
    await t.http.put(`/api/v1/automations/${automationId}`, { nodes: [], edges: [] });
    const e = (await t.http.get(`/api/v1/automations/executions/${ids.old}`)).body.data;
    expect(e.graph.nodes.map((n: any) => n.id)).toEqual(['trigger_1', 'action_1']);
  });

  it('404 for unknown, malformed and other-workspace execution ids', async () => {
    const other = await app.tenant();
    for (const id of ['0123456789abcdef01234567', 'bogus'])
      expect((await t.http.get(`/api/v1/automations/executions/${id}`)).status).toBe(404);
    expect((await other.http.get(`/api/v1/automations/executions/${ids.old}`)).status).toBe(404);
  });
});

describe('DELETE /api/v1/automations/:id', () => {
  it('is refused with 409 while an execution runs, then deletes the automation with its runs and steps', async () => {
    const t = await app.tenant();
    const ctx = await workspaceCtx(app, t.http);
    const id = await newAutomation(t.http);
    const keep = await newAutomation(t.http, 'Keep');
    const running = await insertExecution(ctx, id, { status: 'running' });
    const done = await insertExecution(ctx, id, { status: 'completed' });
    await insertStep(ctx, done._id, { nodeId: 'trigger_1', nodeType: 'trigger', startedAt: new Date() });
    const kept = await insertExecution(ctx, keep, { status: 'running' });
    await insertStep(ctx, kept._id, { nodeId: 'trigger_1', nodeType: 'trigger', startedAt: new Date() });

    const refused = await t.http.delete(`/api/v1/automations/${id}`);
    expectError(refused, 409, /1 running execution; cancel it/);
    expect((await t.http.get(`/api/v1/automations/${id}`)).status).toBe(200);

    await ctx.em.nativeUpdate(
      AutomationExecution,
      { _id: running._id },
      { status: 'cancelled', finishedAt: new Date() },
    );
    const res = await t.http.delete(`/api/v1/automations/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { deleted: true } });
    expect((await t.http.get(`/api/v1/automations/${id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/automations/${id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/automations/executions/${done._id}`)).status).toBe(404);
    const left = await sql(
      'select (select count(*)::int from automation_execution where automation_id = ?) as runs, (select count(*)::int from automation_step where execution_id = ?) as steps',
      [id, done._id],
    );
    expect(left[0]).toEqual({ runs: 0, steps: 0 });
    // Other automations keep their runs and steps.
    expect((await t.http.get(`/api/v1/automations/executions/${kept._id}`)).body.data.steps).toHaveLength(1);
    const events = (await eventsFor(app.runtime.deps.orm, id)).filter((e) => e.type === 'automation_changed');
    expect(events.map((e) => e.payload.action)).toEqual(['created', 'deleted']);
    expect(events[1]!.payload.automation).toMatchObject({ _id: id, name: 'Flow' });
  });

  it('404 for an unknown automation', async () => {
    const t = await app.tenant();
    expect((await t.http.delete('/api/v1/automations/0123456789abcdef01234567')).status).toBe(404);
  });
});
