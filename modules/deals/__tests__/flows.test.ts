import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const UNKNOWN = '0123456789abcdef01234567';
const makeFlow = async (tenant: Tenant, body: Record<string, unknown> = {}) => {
  const res = await tenant.http.post('/api/v1/flows', {
    title: 'Flow',
    stages: [{ title: 'A' }, { title: 'B' }, { title: 'Won', type: 'won' }],
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body.data;
};
const countFlows = async (workspaceId: string): Promise<number> => {
  const rows = await app.runtime.deps.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from flow where workspace_id = ?', [workspaceId]);
  return Number(rows[0]!.n);
};

describe('default flow', () => {
  it('a workspace without flows gets the "Sales pipeline" once, even with concurrent first calls', async () => {
    const fresh = await app.tenant();
    expect(await countFlows(fresh.workspaceId)).toBe(0);
    const results = await Promise.all(Array.from({ length: 5 }, () => fresh.http.get('/api/v1/flows')));
    for (const res of results) expect(res.status).toBe(200);
    const res = await fresh.http.get('/api/v1/flows');
    expect(res.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    const flow = res.body.data[0];
    expect(flow).toMatchObject({ title: 'Sales pipeline', isDefault: true, description: null });
    expect(flow.stages.map((s: any) => [s.title, s.type, s.order])).toEqual([
      ['Lead', 'open', 1],
      ['Qualified', 'open', 2],
      ['Proposal', 'open', 3],
      ['Negotiation', 'open', 4],
      ['Won', 'won', 5],
      ['Lost', 'lost', 6],
    ]);
    for (const s of flow.stages) expect(s.id).toMatch(/^[0-9a-f]{24}$/);
    expect(await countFlows(fresh.workspaceId)).toBe(1);
    expect((await eventsFor(app.runtime.deps.orm, flow._id)).map((e) => e.type)).toEqual(['flow_created']);
  });

  it('a workspace whose first flow is created explicitly gets no extra default; that flow is the default', async () => {
    const fresh = await app.tenant();
    const flow = await makeFlow(fresh, { title: 'Custom' });
    expect(flow.isDefault).toBe(true);
    const list = await fresh.http.get('/api/v1/flows');
    expect(list.body.data.map((f: any) => f.title)).toEqual(['Custom']);
  });
});

describe('flows CRUD', () => {
  it('creates a flow with stages (orders default to their position), gets it, lists it', async () => {
    const res = await t.http.post('/api/v1/flows', {
      title: '  Partners ',
      description: 'Channel deals',
      stages: [
        { title: 'Intro', probability: 10 },
        { title: 'Deal', order: 10 },
        { title: 'After' },
        { title: 'Signed', type: 'won', probability: 100 },
        { title: 'Dropped', type: 'lost' },
      ],
    });
    const flow = expectCreated(res, { title: 'Partners', description: 'Channel deals' });
    expect(flow.stages.map((s: any) => [s.title, s.order, s.type, s.probability])).toEqual([
      ['Intro', 1, 'open', 10],
      ['Deal', 10, 'open', null],
      ['After', 11, 'open', null],
      ['Signed', 12, 'won', 100],
      ['Dropped', 13, 'lost', null],
    ]);
    const got = await t.http.get(`/api/v1/flows/${flow._id}`);
    expect(got.body.data).toEqual(flow);
    const list = await t.http.get('/api/v1/flows?limit=100');
    expect(list.body.data.map((f: any) => f._id)).toContain(flow._id);
    expect((await eventsFor(app.runtime.deps.orm, flow._id)).map((e) => e.type)).toEqual(['flow_created']);
  });

  it('404s unknown, malformed and other-workspace flow ids', async () => {
    const other = await app.tenant();
    const foreign = await makeFlow(other);
    for (const id of [UNKNOWN, 'nope', foreign._id]) {
      expectError(await t.http.get(`/api/v1/flows/${id}`), 404, /flow not found/);
    }
  });

  it('PUT changes title/description partially and moves the default with isDefault: true', async () => {
    const fresh = await app.tenant();
    const first = await makeFlow(fresh, { title: 'First' });
    const second = await makeFlow(fresh, { title: 'Second' });
    expect(second.isDefault).toBe(false);
    const upd = await fresh.http.put(`/api/v1/flows/${second._id}`, { description: 'desc', isDefault: true });
    expectOk(upd, { title: 'Second', description: 'desc', isDefault: true });
    expect(upd.body.data.stages).toHaveLength(3);
    expect((await fresh.http.get(`/api/v1/flows/${first._id}`)).body.data.isDefault).toBe(false);
    const clear = await fresh.http.put(`/api/v1/flows/${second._id}`, { description: '' });
    expect(clear.body.data.description).toBeNull();
    const events = await eventsFor(app.runtime.deps.orm, second._id);
    expect(events.map((e) => e.type)).toEqual(['flow_created', 'flow_updated', 'flow_updated']);
    expect(events[1]!.payload.changes.isDefault).toEqual({ from: false, to: true });
    // Creating a flow with isDefault: true takes the default too.
    const third = await makeFlow(fresh, { title: 'Third', isDefault: true });
    expect(third.isDefault).toBe(true);
    expect((await fresh.http.get(`/api/v1/flows/${second._id}`)).body.data.isDefault).toBe(false);
  });

  it('unsetting the default directly is 409 (set it on another flow instead)', async () => {
    const fresh = await app.tenant();
    const flow = await makeFlow(fresh);
    expectError(await fresh.http.put(`/api/v1/flows/${flow._id}`, { isDefault: false }), 409, /default flow/);
  });

  it('DELETE removes a flow and its stages; the last flow cannot go; the default passes to the oldest other', async () => {
    const fresh = await app.tenant();
    const a = await makeFlow(fresh, { title: 'A' });
    const lonely = await fresh.http.delete(`/api/v1/flows/${a._id}`);
    expectError(lonely, 409, /at least one flow/);
    const b = await makeFlow(fresh, { title: 'B' });
    await makeFlow(fresh, { title: 'C' });
    const del = await fresh.http.delete(`/api/v1/flows/${a._id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    expect((await fresh.http.get(`/api/v1/flows/${a._id}`)).status).toBe(404);
    expect((await fresh.http.get(`/api/v1/flows/${b._id}`)).body.data.isDefault).toBe(true);
    const stages = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute('select id from flow_stage where flow_id = ?', [a._id]);
    expect(stages).toEqual([]);
    expect((await eventsFor(app.runtime.deps.orm, a._id)).map((e) => e.type)).toEqual(['flow_created', 'flow_deleted']);
    expect((await fresh.http.delete(`/api/v1/flows/${a._id}`)).status).toBe(404);
  });

  const badFlows: [string, unknown, RegExp][] = [
    ['missing title', { stages: [] }, /title/],
    ['empty title', { title: '  ' }, /title/],
    ['title over 200', { title: 'x'.repeat(201) }, /title.*200/],
    ['description over 2000', { title: 'a', description: 'd'.repeat(2001) }, /description.*2000/],
    ['isDefault not boolean', { title: 'a', isDefault: 'yes' }, /isDefault/],
    ['51 stages', { title: 'a', stages: Array.from({ length: 51 }, (_, i) => ({ title: `s${i}` })) }, /stages.*50/],
    ['stage without title', { title: 'a', stages: [{ order: 1 }] }, /stages\.0\.title/],
    ['stage title over 200', { title: 'a', stages: [{ title: 's'.repeat(201) }] }, /title.*200/],
    ['stage type closed', { title: 'a', stages: [{ title: 's', type: 'closed' }] }, /type.*open, won, lost/],
    ['stage probability 101', { title: 'a', stages: [{ title: 's', probability: 101 }] }, /probability.*100/],
    ['stage probability -1', { title: 'a', stages: [{ title: 's', probability: -1 }] }, /probability.*0/],
    ['stage order not a number', { title: 'a', stages: [{ title: 's', order: 'first' }] }, /order/],
    ['stages not an array', { title: 'a', stages: 'A,B' }, /stages/],
  ];
  it.each(badFlows)('POST /flows: 400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/flows', body, message, () => countFlows(t.workspaceId));
  });

  it('accepts the boundaries: title of 200, 50 stages, probability 0 and 100', async () => {
    const res = await t.http.post('/api/v1/flows', {
      title: 't'.repeat(200),
      description: 'd'.repeat(2000),
      stages: Array.from({ length: 50 }, (_, i) => ({ title: 's'.repeat(200), probability: i % 2 ? 100 : 0 })),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.stages).toHaveLength(50);
    expectError(
      await t.http.post(`/api/v1/flows/${res.body.data._id}/stages`, { title: '51st' }),
      400,
      /at most 50 stages/,
    );
  });

  it.each(['limit=101', 'limit=0', 'page=0'])('GET /flows: 400 for ?%s', async (qs) => {
    expect((await t.http.get(`/api/v1/flows?${qs}`)).status).toBe(400);
  });
});

describe('stages', () => {
  it('POST adds a stage after the last one (201 with the stage), PUT updates it, DELETE removes it (body or query id)', async () => {
    const flow = await makeFlow(t);
    const add = await t.http.post(`/api/v1/flows/${flow._id}/stages`, { title: 'Review', probability: 60 });
    expectCreated(add, { title: 'Review', order: 4, type: 'open', probability: 60, flowId: flow._id });
    const stageId = add.body.data.id;
    const early = await t.http.post(`/api/v1/flows/${flow._id}/stages`, { title: 'Zero', order: 0.5, type: 'lost' });
    expect(early.body.data.order).toBe(0.5);
    const ordered = await t.http.get(`/api/v1/flows/${flow._id}`);
    expect(ordered.body.data.stages.map((s: any) => s.title)).toEqual(['Zero', 'A', 'B', 'Won', 'Review']);

    const upd = await t.http.put(`/api/v1/flows/${flow._id}/stages`, {
      id: stageId,
      title: 'Legal review',
      order: 1.5,
      type: 'open',
      probability: null,
    });
    expectOk(upd, { id: stageId, title: 'Legal review', order: 1.5, probability: null });
    expect((await t.http.get(`/api/v1/flows/${flow._id}`)).body.data.stages.map((s: any) => s.title)).toEqual([
      'Zero',
      'A',
      'Legal review',
      'B',
      'Won',
    ]);

    expect((await t.http.request('DELETE', `/api/v1/flows/${flow._id}/stages?id=${stageId}`)).body).toEqual({
      ok: true,
    });
    const viaBody = await t.http.request('DELETE', `/api/v1/flows/${flow._id}/stages`, { id: early.body.data.id });
    expect(viaBody.status).toBe(200);
    expect((await t.http.get(`/api/v1/flows/${flow._id}`)).body.data.stages.map((s: any) => s.title)).toEqual([
      'A',
      'B',
      'Won',
    ]);
    const types = (await eventsFor(app.runtime.deps.orm, flow._id)).map((e) => e.type);
    expect(types).toEqual([
      'flow_created',
      'flow_stage_created',
      'flow_stage_created',
      'flow_stage_updated',
      'flow_stage_deleted',
      'flow_stage_deleted',
    ]);
  });

  it('404 for an unknown stage or one of another flow; 400 for a missing or malformed id', async () => {
    const flow = await makeFlow(t);
    const other = await makeFlow(t);
    const otherStage = other.stages[0].id;
    expect((await t.http.put(`/api/v1/flows/${flow._id}/stages`, { id: UNKNOWN, title: 'x' })).status).toBe(404);
    expect((await t.http.put(`/api/v1/flows/${flow._id}/stages`, { id: otherStage, title: 'x' })).status).toBe(404);
    expect((await t.http.request('DELETE', `/api/v1/flows/${flow._id}/stages?id=${otherStage}`)).status).toBe(404);
    for (const res of [
      await t.http.put(`/api/v1/flows/${flow._id}/stages`, { title: 'x' }),
      await t.http.put(`/api/v1/flows/${flow._id}/stages`, { id: 'abc', title: 'x' }),
      await t.http.request('DELETE', `/api/v1/flows/${flow._id}/stages`),
      await t.http.request('DELETE', `/api/v1/flows/${flow._id}/stages?id=abc`),
    ]) {
      expectError(res, 400, /id/);
    }
    expect((await t.http.get(`/api/v1/flows/${other._id}`)).body.data.stages[0].title).toBe('A');
  });

  const badStages: [string, Record<string, unknown>, RegExp][] = [
    ['missing title', { order: 2 }, /title/],
    ['title over 200', { title: 'x'.repeat(201) }, /title.*200/],
    ['type won-ish', { title: 'x', type: 'closed_won' }, /type/],
    ['probability 101', { title: 'x', probability: 101 }, /probability/],
    ['order over 1000000', { title: 'x', order: 1_000_001 }, /order/],
  ];
  it.each(badStages)('POST /flows/:id/stages: 400 for %s', async (_label, body, message) => {
    const flow = await makeFlow(t);
    const res = await t.http.post(`/api/v1/flows/${flow._id}/stages`, body);
    expectError(res, 400, message);
    expect((await t.http.get(`/api/v1/flows/${flow._id}`)).body.data.stages).toHaveLength(3);
  });

  it('409 when deleting a stage or flow that still has deals, or retyping a stage with deals', async () => {
    const fresh = await app.tenant();
    await makeFlow(fresh, { title: 'Spare' });
    const flow = await makeFlow(fresh, { title: 'Busy' });
    const stage = flow.stages[1];
    const deal = await fresh.http.post('/api/v1/deals', {
      title: 'Blocking deal',
      flowId: flow._id,
      stageId: stage.id,
    });
    expect(deal.status).toBe(201);
    const delStage = await fresh.http.request('DELETE', `/api/v1/flows/${flow._id}/stages?id=${stage.id}`);
    expectError(delStage, 409, /stage "B" has 1 deal\(s\)/);
    const retype = await fresh.http.put(`/api/v1/flows/${flow._id}/stages`, { id: stage.id, type: 'won' });
    expectError(retype, 409, /type/);
    // Renaming is fine while deals sit in the stage.
    expect((await fresh.http.put(`/api/v1/flows/${flow._id}/stages`, { id: stage.id, title: 'Renamed' })).status).toBe(
      200,
    );
    const delFlow = await fresh.http.delete(`/api/v1/flows/${flow._id}`);
    expectError(delFlow, 409, /flow has 1 deal\(s\)/);
    expect((await fresh.http.get(`/api/v1/flows/${flow._id}`)).body.data.stages).toHaveLength(3);
    // Once the deal is gone, both deletes pass.
    await fresh.http.delete(`/api/v1/deals/${deal.body.data._id}`);
    expect((await fresh.http.request('DELETE', `/api/v1/flows/${flow._id}/stages?id=${stage.id}`)).status).toBe(200);
    expect((await fresh.http.delete(`/api/v1/flows/${flow._id}`)).status).toBe(200);
  });
});
