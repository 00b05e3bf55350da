import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { automationBody, validGraph, workspaceCtx } from '../../../test/support/automations';
import { eventsFor } from '../../../test/support/outbox';
import { Automation } from '../automation.entity';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const create = (body: Record<string, unknown> = {}) => t.http.post('/api/v1/automations', automationBody(body));
const createId = async (body: Record<string, unknown> = {}): Promise<string> => {
  const res = await create(body);
  expect(res.status).toBe(201);
  return res.body.data._id as string;
};
const get = async (id: string) => (await t.http.get(`/api/v1/automations/${id}`)).body.data;
const count = async (): Promise<number> => (await t.http.get('/api/v1/automations?limit=1')).body.total;
const changes = async (id: string) =>
  (await eventsFor(app.runtime.deps.orm, id)).filter((e) => e.type === 'automation_changed');

const pos = { x: 500, y: 400 };
/** The valid graph plus extra nodes/edges (edges default to trigger → each extra node). */
function graphWith(extra: Record<string, unknown>[], edges?: Record<string, unknown>[]) {
  const g = validGraph();
  const nodes = [...g.nodes, ...extra.map((n) => ({ position: pos, ...n }))];
  return {
    nodes,
    edges: [
      ...g.edges,
      ...(edges ?? extra.map((n, i) => ({ id: `x${i}`, source: 'trigger_1', target: n.id, sourceHandle: null }))),
    ],
  };
}
const condition = {
  id: 'cond_1',
  type: 'condition',
  data: { conditions: [{ id: 'c1', field: 'lead.score', operator: 'greater_than', value: 10 }], logic: 'and' },
};
const lookup = { id: 'look_1', type: 'lookup', data: { label: 'Open deals', entityType: 'Deal', mode: 'first' } };
const actionNode = (id: string, actionType: string, config: Record<string, unknown>) => ({
  id,
  type: 'action',
  data: { actionType, config },
});
const branch = (node: Record<string, unknown>, handle: string | null) =>
  graphWith(
    [node, actionNode('after', 'create_note', { noteContent: 'x' })],
    [
      { id: 'a', source: 'trigger_1', target: node.id },
      { id: 'b', source: node.id, target: 'after', sourceHandle: handle },
    ],
  );

describe('POST /api/v1/automations', () => {
  it('creates an inactive automation with defaults, stats and version 1, and emits automation_changed', async () => {
    const res = await create({ isActive: true, version: 9, totalRuns: 4, workspaceId: '0123456789abcdef01234567' });
    const a = expectCreated(res, {
      name: 'Welcome note',
      description: 'Notes every new lead',
      isActive: false,
      triggerType: 'record_created',
      version: 1,
      deactivatedReason: null,
      executionSettings: { failureBehavior: 'stop', retryMaxAttempts: 3, retryIntervalMinutes: 5 },
      rateLimits: { maxRunsPerHour: 0, maxRunsPerDay: 0, maxRunsPerWeek: 0, maxTotalRuns: 0 },
      stats: { totalRuns: 0, skippedRuns: 0, lastSkipReason: null, lastSkippedAt: null },
      createdBy: t.userId,
      nodes: validGraph().nodes,
      edges: validGraph().edges,
    });
    expect(res.body.warnings).toBeUndefined();
    expect(await get(a._id)).toEqual(a);
    const events = await changes(a._id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      entity_type: 'automation',
      entity_id: a._id,
      payload: { action: 'created', automation: { _id: a._id, isActive: false } },
    });
  });

  it('accepts an empty draft (no nodes) and settings at their bounds', async () => {
    const draft = await t.http.post('/api/v1/automations', { name: 'Draft' });
    expectCreated(draft, {
      nodes: [],
      edges: [],
      triggerType: null,
      isActive: false,
      description: null,
    });
    for (const [executionSettings, rateLimits] of [
      [
        { failureBehavior: 'retry', retryMaxAttempts: 1, retryIntervalMinutes: 1 },
        { maxRunsPerHour: 0, maxTotalRuns: 2_147_483_647 },
      ],
      [{ retryMaxAttempts: 10, retryIntervalMinutes: 1440 }, { maxRunsPerDay: 1 }],
    ]) {
      const res = await create({ name: 'n'.repeat(200), executionSettings, rateLimits });
      expect(res.status).toBe(201);
      expect(res.body.data.executionSettings).toMatchObject(executionSettings!);
      expect(res.body.data.rateLimits).toMatchObject(rateLimits!);
    }
  });

  it('answers warnings for deprecated actions but saves', async () => {
    const res = await create(graphWith([actionNode('old', 'create_lead', { title: 'Legacy' })]));
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      expect.objectContaining({
        path: 'nodes[2].data.actionType',
        error: expect.stringMatching(/deprecated; use create_record/),
      }),
    ]);
  });

  const twoTriggers = graphWith([{ id: 'trigger_2', type: 'trigger', data: { triggerType: 'deal_won' } }], []);
  const bad: [string, Record<string, unknown>, RegExp, string][] = [
    ['missing name', { name: undefined }, /name: is required/, 'name'],
    ['name over 200', { name: 'x'.repeat(201) }, /name: must be at most 200/, 'name'],
    ['two triggers', twoTriggers, /only one trigger node is allowed/, 'nodes[2].type'],
    [
      'no trigger in a non-empty graph',
      { nodes: [{ ...actionNode('a', 'create_note', { noteContent: 'x' }), position: pos }], edges: [] },
      /needs exactly one trigger node/,
      'nodes',
    ],
    [
      'edge to an unknown node',
      graphWith([], [{ id: 'ghost', source: 'action_1', target: 'nowhere' }]),
      /edges\[1\]\.target: unknown node "nowhere"/,
      'edges[1].target',
    ],
    [
      'condition edge without handle',
      branch(condition, null),
      /is required from a condition node \(true, false\)/,
      'edges[2].sourceHandle',
    ],
    [
      'condition edge with handle found',
      branch(condition, 'found'),
      /"found" is not a handle of a condition node/,
      'edges[2].sourceHandle',
    ],
    [
      'lookup edge with handle true',
      branch(lookup, 'true'),
      /"true" is not a handle of a lookup node \(found, empty, error\)/,
      'edges[2].sourceHandle',
    ],
    [
      'action edge with a handle',
      graphWith(
        [actionNode('n2', 'create_note', { noteContent: 'x' })],
        [{ id: 'a', source: 'action_1', target: 'n2', sourceHandle: 'true' }],
      ),
      /must be null: a action node does not branch/,
      'edges[1].sourceHandle',
    ],
    [
      'unknown action type',
      graphWith([actionNode('n2', 'launch_rocket', {})]),
      /unknown action type "launch_rocket"/,
      'nodes[2].data.actionType',
    ],
    [
      'unknown trigger type',
      { nodes: [{ id: 't', type: 'trigger', position: pos, data: { triggerType: 'moon_landed' } }], edges: [] },
      /unknown trigger type "moon_landed"/,
      'nodes[0].data.triggerType',
    ],
    [
      'create_note with content',
      graphWith([actionNode('n2', 'create_note', { content: 'Hi' })]),
      /noteContent: is required \(found "content": create_note reads noteContent, not content\)/,
      'nodes[2].data.config.noteContent',
    ],
    [
      'create_task without title',
      graphWith([actionNode('n2', 'create_task', { description: 'x' })]),
      /nodes\[2\]\.data\.config\.title: is required/,
      'nodes[2].data.config.title',
    ],
    [
      'node id with a dot',
      { nodes: [{ id: 'a.b', type: 'trigger', position: pos, data: { triggerType: 'deal_won' } }], edges: [] },
      /nodes\.0\.id/,
      'nodes.0.id',
    ],
    [
      '201 nodes',
      {
        nodes: Array.from({ length: 201 }, (_, i) => ({
          id: `n${i}`,
          type: 'delay',
          position: pos,
          data: { delayMinutes: 5 },
        })),
        edges: [],
      },
      /nodes: at most 200 nodes/,
      'nodes',
    ],
    [
      'retryMaxAttempts 0',
      { executionSettings: { retryMaxAttempts: 0 } },
      /executionSettings\.retryMaxAttempts/,
      'executionSettings.retryMaxAttempts',
    ],
    [
      'retryMaxAttempts 11',
      { executionSettings: { retryMaxAttempts: 11 } },
      /executionSettings\.retryMaxAttempts/,
      'executionSettings.retryMaxAttempts',
    ],
    [
      'retryIntervalMinutes 1441',
      { executionSettings: { retryIntervalMinutes: 1441 } },
      /executionSettings\.retryIntervalMinutes/,
      'executionSettings.retryIntervalMinutes',
    ],
    [
      'retryIntervalMinutes 0',
      { executionSettings: { retryIntervalMinutes: 0 } },
      /executionSettings\.retryIntervalMinutes/,
      'executionSettings.retryIntervalMinutes',
    ],
    [
      'unknown failureBehavior',
      { executionSettings: { failureBehavior: 'explode' } },
      /executionSettings\.failureBehavior/,
      'executionSettings.failureBehavior',
    ],
    [
      'negative run cap',
      { rateLimits: { maxRunsPerHour: -1 } },
      /rateLimits\.maxRunsPerHour/,
      'rateLimits.maxRunsPerHour',
    ],
    [
      'fractional run cap',
      { rateLimits: { maxTotalRuns: 1.5 } },
      /rateLimits\.maxTotalRuns/,
      'rateLimits.maxTotalRuns',
    ],
  ];
  it.each(bad)('400 for %s, naming the field; nothing written', async (_label, body, message, path) => {
    const before = await count();
    const res = await create(body);
    expectError(res, 400, message);
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await count()).toBe(before);
  });
});

describe('GET /api/v1/automations', () => {
  it('pages newest first and filters by isActive', async () => {
    const mine = await app.tenant();
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C'])
      ids.push((await mine.http.post('/api/v1/automations', automationBody({ name }))).body.data._id);
    expect((await mine.http.post(`/api/v1/automations/${ids[1]}/toggle`)).body.data.isActive).toBe(true);
    const all = await mine.http.get('/api/v1/automations?limit=2');
    expect(all.body).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(all.body.data.map((a: any) => a.name)).toEqual(['C', 'B']);
    const active = await mine.http.get('/api/v1/automations?isActive=true');
    expect(active.body.data.map((a: any) => a._id)).toEqual([ids[1]]);
    const inactive = await mine.http.get('/api/v1/automations?isActive=false&limit=100');
    expect(inactive.body.data.map((a: any) => a.name)).toEqual(['C', 'A']);
    expect(inactive.body.total).toBe(2);
  });

  it.each([
    ['limit=101', /limit must be at most 100/],
    ['limit=0', /limit/],
    ['page=0', /page/],
    ['isActive=yes', /isActive: must be true or false/],
    ['active=true', /active/],
  ])('400 for ?%s', async (qs, message) => {
    expectError(await t.http.get(`/api/v1/automations?${qs}`), 400, message);
  });

  it('404 for unknown and malformed ids', async () => {
    for (const id of ['0123456789abcdef01234567', 'nope'])
      expect((await t.http.get(`/api/v1/automations/${id}`)).status).toBe(404);
  });
});

describe('PUT /api/v1/automations/:id', () => {
  it('merges settings key by key and bumps version only when the definition changes', async () => {
    const id = await createId({ executionSettings: { failureBehavior: 'retry', retryMaxAttempts: 5 } });
    const renamed = await t.http.put(`/api/v1/automations/${id}`, { name: 'Renamed', description: null });
    expectOk(renamed, { name: 'Renamed', description: null, version: 1 });
    const merged = await t.http.put(`/api/v1/automations/${id}`, {
      executionSettings: { retryIntervalMinutes: 60 },
      rateLimits: { maxRunsPerDay: 10 },
    });
    expect(merged.body.data).toMatchObject({
      version: 2,
      executionSettings: { failureBehavior: 'retry', retryMaxAttempts: 5, retryIntervalMinutes: 60 },
      rateLimits: { maxRunsPerHour: 0, maxRunsPerDay: 10, maxRunsPerWeek: 0, maxTotalRuns: 0 },
    });
    // The same graph with its keys in another order is not a change.
    const reordered = validGraph().nodes.map((n) => ({ data: n.data, position: n.position, type: n.type, id: n.id }));
    const same = await t.http.put(`/api/v1/automations/${id}`, {
      nodes: reordered,
      executionSettings: { retryMaxAttempts: 5 },
    });
    expect(same.body.data.version).toBe(2);
    const g = validGraph();
    g.nodes[0]!.data = { triggerType: 'deal_won' };
    const retriggered = await t.http.put(`/api/v1/automations/${id}`, { nodes: g.nodes });
    expect(retriggered.body.data).toMatchObject({ version: 3, triggerType: 'deal_won' });
    expect((await changes(id)).map((e) => [e.payload.action, e.payload.automation.version])).toEqual([
      ['created', 1],
      ['updated', 1],
      ['updated', 2],
      ['updated', 3],
    ]);
  });

  it('lets an inactive automation go back to an empty draft, but refuses broken graphs', async () => {
    const id = await createId();
    expect((await t.http.put(`/api/v1/automations/${id}`, { nodes: [], edges: [] })).body.data).toMatchObject({
      nodes: [],
      triggerType: null,
      version: 2,
    });
    const broken = await t.http.put(
      `/api/v1/automations/${id}`,
      graphWith([actionNode('n2', 'create_note', { content: 'x' })]),
    );
    expectError(broken, 400, /noteContent/);
  });

  it('validates an active automation strictly: 400 and nothing changes', async () => {
    const id = await createId();
    await t.http.post(`/api/v1/automations/${id}/toggle`);
    const before = await get(id);
    for (const body of [
      { nodes: [], edges: [] },
      { edges: [{ id: 'e1', source: 'trigger_1', target: 'ghost' }] },
      { nodes: graphWith([actionNode('n2', 'create_task', {})]).nodes },
      { executionSettings: { retryIntervalMinutes: 1441 } },
    ]) {
      const res = await t.http.put(`/api/v1/automations/${id}`, { name: 'Should not stick', ...body });
      expect(res.status).toBe(400);
      expect(await get(id)).toEqual(before);
    }
    expect((await changes(id)).map((e) => e.payload.action)).toEqual(['created', 'toggled']);
  });

  it('404 for an unknown automation', async () => {
    expect((await t.http.put('/api/v1/automations/0123456789abcdef01234567', { name: 'x' })).status).toBe(404);
  });
});

describe('POST /api/v1/automations/:id/toggle', () => {
  it('turns on only a fully valid graph and answers { _id, isActive }', async () => {
    const draft = (await t.http.post('/api/v1/automations', { name: 'Empty' })).body.data._id;
    const refused = await t.http.post(`/api/v1/automations/${draft}/toggle`);
    expectError(refused, 400, /needs exactly one trigger node/);
    expect((await get(draft)).isActive).toBe(false);

    const id = await createId();
    const on = await t.http.post(`/api/v1/automations/${id}/toggle`);
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ _id: id, isActive: true });
    const off = await t.http.post(`/api/v1/automations/${id}/toggle`);
    expect(off.body.data).toEqual({ _id: id, isActive: false });
    expect((await get(id)).version).toBe(1);
    expect((await changes(id)).map((e) => [e.payload.action, e.payload.automation.isActive])).toEqual([
      ['created', false],
      ['toggled', true],
      ['toggled', false],
    ]);
  });

  it.each([
    [{ delayAmount: 1, delayUnit: 'days' }],
    [{ waitAmount: 2, waitUnit: 'hours' }],
    [{ duration: 30, unit: 'minutes' }],
    [{ amount: 1, unit: 'weeks' }],
    [{ waitDays: 2, waitHours: 3 }],
    [{ delayMinutes: 15 }],
  ])('turns on a graph whose delay node uses %j (the wait alias family)', async (data) => {
    const id = await createId(graphWith([{ id: 'wait_1', type: 'delay', data }]));
    expect((await t.http.post(`/api/v1/automations/${id}/toggle`)).body.data).toEqual({ _id: id, isActive: true });
  });

  it('refuses a delay node with an unknown unit, naming the key', async () => {
    const res = await create(
      graphWith([{ id: 'wait_1', type: 'delay', data: { delayAmount: 1, delayUnit: 'fortnights' } }]),
    );
    expectError(res, 400, /data\.delayUnit: must be one of minutes, hours, days, weeks/);
  });

  it('clears deactivatedReason on turning on, and refuses while maxTotalRuns is used up', async () => {
    const id = await createId({ rateLimits: { maxTotalRuns: 5 } });
    // What the engine does when the cap is reached.
    const ctx = await workspaceCtx(app, t.http);
    await ctx.em.nativeUpdate(Automation, { _id: id }, { totalRuns: 5, deactivatedReason: 'reached maxTotalRuns (5)' });
    const capped = await t.http.post(`/api/v1/automations/${id}/toggle`);
    expectError(capped, 409, /maxTotalRuns/);
    await t.http.put(`/api/v1/automations/${id}`, { rateLimits: { maxTotalRuns: 0 } });
    expect((await t.http.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(true);
    expect(await get(id)).toMatchObject({ isActive: true, deactivatedReason: null, stats: { totalRuns: 5 } });
  });
});

describe('POST /api/v1/automations/:id/duplicate', () => {
  it('creates an inactive "(copy)" with the same graph and node ids, fresh counters and version 1', async () => {
    const id = await createId({ name: 'n'.repeat(200), rateLimits: { maxRunsPerHour: 3 } });
    await t.http.put(`/api/v1/automations/${id}`, { executionSettings: { failureBehavior: 'continue' } });
    await t.http.post(`/api/v1/automations/${id}/toggle`);
    const ctx = await workspaceCtx(app, t.http);
    await ctx.em.nativeUpdate(
      Automation,
      { _id: id },
      { totalRuns: 7, skippedRuns: 2, lastSkipReason: 'maxRunsPerHour' },
    );
    const res = await t.http.post(`/api/v1/automations/${id}/duplicate`);
    expect(res.status).toBe(201);
    const copy = res.body.data;
    const source = await get(id);
    expect(copy._id).not.toBe(id);
    expect(copy.name).toBe(`${'n'.repeat(193)} (copy)`);
    expect(copy).toMatchObject({
      isActive: false,
      version: 1,
      nodes: source.nodes,
      edges: source.edges,
      triggerType: 'record_created',
      executionSettings: { failureBehavior: 'continue' },
      rateLimits: { maxRunsPerHour: 3 },
      stats: { totalRuns: 0, skippedRuns: 0, lastSkipReason: null, lastSkippedAt: null },
    });
    expect(await get(copy._id)).toEqual(copy);
    expect(source).toMatchObject({ isActive: true, stats: { totalRuns: 7 } });
    expect((await changes(copy._id)).map((e) => e.payload)).toEqual([
      expect.objectContaining({ action: 'duplicated', sourceAutomationId: id }),
    ]);
  });
});

describe('access', () => {
  it('reads need the read scope, writes the write scope; any role may write', async () => {
    const id = await createId();
    const reader = await app.key(t.workspaceId, ['read']);
    const writer = await app.key(t.workspaceId, ['write'], 'member');
    expect((await reader.get('/api/v1/automations')).status).toBe(200);
    expect((await reader.get('/api/v1/automations/stats')).status).toBe(200);
    expect((await reader.get(`/api/v1/automations/${id}/executions`)).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/api/v1/automations'],
      ['PUT', `/api/v1/automations/${id}`],
      ['DELETE', `/api/v1/automations/${id}`],
      ['POST', `/api/v1/automations/${id}/toggle`],
      ['POST', `/api/v1/automations/${id}/duplicate`],
    ] as const) {
      const res = await reader.request(method, path, method === 'DELETE' ? undefined : automationBody());
      expect([method, path, res.status, res.body.error]).toEqual([
        method,
        path,
        403,
        expect.stringMatching(/scope: write/),
      ]);
    }
    expect((await writer.get(`/api/v1/automations/${id}`)).status).toBe(403);
    expect((await writer.post('/api/v1/automations', automationBody())).status).toBe(201);
    expect((await writer.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(true);
  });
});
