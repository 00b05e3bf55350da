import type { Tenant, TestApp } from '../../../test/support/app';
import { eventsFor } from '../../../test/support/outbox';
import { dealFeed, createDeal, stageId, UNKNOWN_ID, withDealFlows, type FlowView } from '../../../test/support/deals';
import { expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let pipeline: FlowView;
let other: FlowView;
withDealFlows((s) => ({ app, t, pipeline, other } = s));

const makeDeal = (body?: Record<string, unknown>) => createDeal(t.http, body);
const events = (id: string) => eventsFor(app.runtime.deps.orm, id);
const types = async (id: string): Promise<string[]> => (await events(id)).map((e) => e.type);
const feed = (id: string) => dealFeed(t.http, id);
const move = (id: string, body: Record<string, unknown>) => t.http.post(`/api/v1/deals/${id}/move`, body);
/** The deal's events are `expected`; its latest feed row logs the reopening (lost → open) and is returned. */
async function expectReopened(id: string, expected: string[]) {
  expect(await types(id)).toEqual(expected);
  const [latest] = await feed(id);
  expect(latest.metadata.changes.status).toEqual({ from: 'lost', to: 'open' });
  return latest;
}

describe('PUT /api/v1/deals/:id', () => {
  it('changes only given keys, merges customFields, logs old and new values and emits deal_updated', async () => {
    const d = await makeDeal({ value: 100, priority: 'low', customFields: { a: 1, b: 2 }, tags: ['x'] });
    const res = await t.http.put(`/api/v1/deals/${d._id}`, {
      value: 250,
      priority: 'high',
      customFields: { b: 3, c: 'new', a: null },
      tags: ['y'],
    });
    expectOk(res, {
      title: 'Deal',
      value: 250,
      priority: 'high',
      customFields: { b: 3, c: 'new' },
      tags: ['y'],
      stageId: d.stageId,
    });
    const [row] = await feed(d._id);
    expect(row).toMatchObject({ type: 'record_updated', system: true });
    expect(row.metadata.changes).toMatchObject({
      value: { from: 100, to: 250 },
      priority: { from: 'low', to: 'high' },
      tags: { from: ['x'], to: ['y'] },
    });
    const evs = await events(d._id);
    expect(evs.map((e) => e.type)).toEqual(['deal_created', 'tag_added', 'deal_updated', 'tag_added', 'tag_removed']);
    expect(evs[2]!.payload.changes.value).toEqual({ from: 100, to: 250 });
    expect(evs[2]!.payload.deal.value).toBe(250);
  });

  it('clears optional fields with null; an unchanged PUT writes nothing', async () => {
    const d = await makeDeal({ value: 5, probability: 20, priority: 'medium' });
    const res = await t.http.put(`/api/v1/deals/${d._id}`, { value: null, probability: null, priority: null });
    expect(res.body.data).toMatchObject({ value: null, probability: null, priority: null });
    const before = (await events(d._id)).length;
    await t.http.put(`/api/v1/deals/${d._id}`, { value: null, title: 'Deal' });
    expect((await events(d._id)).length).toBe(before);
    expect(await feed(d._id)).toHaveLength(2);
  });

  it('status won → wonDate + deal_won; lost → lostDate, wonDate cleared + deal_lost; open → both cleared', async () => {
    const d = await makeDeal();
    const won = (await t.http.put(`/api/v1/deals/${d._id}`, { status: 'won' })).body.data;
    expect(won).toMatchObject({ status: 'won', lostDate: null, stageId: d.stageId });
    expect(won.wonDate).toEqual(expect.any(String));
    const lost = (await t.http.put(`/api/v1/deals/${d._id}`, { status: 'lost', lostDate: '2025-02-03' })).body.data;
    expect(lost).toMatchObject({ status: 'lost', wonDate: null, lostDate: '2025-02-03T00:00:00.000Z' });
    const reopened = (await t.http.put(`/api/v1/deals/${d._id}`, { status: 'open' })).body.data;
    expect(reopened).toMatchObject({ status: 'open', wonDate: null, lostDate: null });
    const latest = await expectReopened(d._id, [
      'deal_created',
      'deal_updated',
      'deal_won',
      'deal_updated',
      'deal_lost',
      'deal_updated',
    ]);
    expect(latest.metadata.changes.lostDate).toEqual({ from: '2025-02-03T00:00:00.000Z', to: null });
  });

  it('a deal in a won stage cannot take another status by PUT (409); moving it to an open stage reopens it', async () => {
    const d = await makeDeal({ stageId: stageId(pipeline, 'Won') });
    const res = await t.http.put(`/api/v1/deals/${d._id}`, { status: 'open' });
    expectError(res, 409, /won stage/);
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data.status).toBe('won');
  });

  it('stageId/flowId by PUT follow the move rules', async () => {
    const d = await makeDeal();
    const same = await t.http.put(`/api/v1/deals/${d._id}`, { stageId: stageId(pipeline, 'Qualified') });
    expect(same.body.data.stageId).toBe(stageId(pipeline, 'Qualified'));
    const cross = await t.http.put(`/api/v1/deals/${d._id}`, { stageId: stageId(other, 'Due') });
    expect(cross.status).toBe(400);
    const byFlow = await t.http.put(`/api/v1/deals/${d._id}`, { flowId: other._id });
    expect(byFlow.body.data).toMatchObject({ flowId: other._id, stageId: stageId(other, 'Due') });
    // Sending the current flowId alone keeps the stage.
    const keep = await t.http.put(`/api/v1/deals/${d._id}`, { flowId: other._id, title: 'Renamed' });
    expect(keep.body.data).toMatchObject({ stageId: stageId(other, 'Due'), title: 'Renamed' });
    expect((await types(d._id)).filter((x) => x === 'deal_stage_changed')).toHaveLength(2);
  });

  it('preview shows the diff, including status consequences, and changes nothing', async () => {
    const d = await makeDeal({ value: 1 });
    const res = await t.http.put(`/api/v1/deals/${d._id}?preview=true`, {
      value: 2,
      stageId: stageId(pipeline, 'Won'),
    });
    expectOk(res, {
      preview: true,
      current: { value: 1, status: 'open' },
      proposed: { value: 2, status: 'won' },
    });
    expect(res.body.data.diff).toMatchObject({
      value: { from: 1, to: 2 },
      status: { from: 'open', to: 'won' },
      stageId: { from: d.stageId, to: stageId(pipeline, 'Won') },
    });
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data).toEqual(d);
    expect(await types(d._id)).toEqual(['deal_created']);
    expect(await feed(d._id)).toHaveLength(1);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['empty title', { title: '' }, /title/],
    ['negative value', { value: -0.01 }, /value/],
    ['probability 101', { probability: 101 }, /probability/],
    ['priority urgent', { priority: 'urgent' }, /priority/],
    ['status pending', { status: 'pending' }, /status/],
    ['unknown person', { personRef: UNKNOWN_ID }, /personRef: no person/],
    ['unknown lead', { leadRef: UNKNOWN_ID }, /leadRef: no lead/],
    ['unknown company', { company: UNKNOWN_ID }, /company: no company/],
    ['null ownerId', { ownerId: null }, /ownerId/],
    ['null stageId', { stageId: null }, /stageId/],
    ['lostDate on an open deal', { lostDate: '2025-01-01' }, /lostDate/],
  ];
  it.each(bad)('400 for %s, deal unchanged', async (_label, body, message) => {
    const d = await makeDeal();
    const res = await t.http.put(`/api/v1/deals/${d._id}`, body);
    expectError(res, 400, message);
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data).toEqual(d);
  });
});

describe('POST /api/v1/deals/:id/move', () => {
  it('moves within the flow, logs the stage titles to the feed and emits deal_stage_changed', async () => {
    const d = await makeDeal();
    const res = await move(d._id, { stageId: stageId(pipeline, 'Proposal') });
    expectOk(res, {
      stageId: stageId(pipeline, 'Proposal'),
      flowId: pipeline._id,
      status: 'open',
    });
    const [row] = await feed(d._id);
    expect(row.summary).toMatch(/moved from Lead to Proposal/);
    expect(row.metadata.stage).toEqual({
      fromStageId: d.stageId,
      fromTitle: 'Lead',
      toStageId: stageId(pipeline, 'Proposal'),
      toTitle: 'Proposal',
      fromFlowId: pipeline._id,
      toFlowId: pipeline._id,
    });
    expect(row.metadata.changes.stageId).toEqual({ from: d.stageId, to: stageId(pipeline, 'Proposal') });
    const evs = await events(d._id);
    expect(evs.map((e) => e.type)).toEqual(['deal_created', 'deal_updated', 'deal_stage_changed']);
    expect(evs[2]!.payload).toMatchObject({
      fromStageId: d.stageId,
      toStageId: stageId(pipeline, 'Proposal'),
      flowId: pipeline._id,
      deal: { _id: d._id },
    });
  });

  it('into a won stage wins the deal, into a lost stage loses it, back to an open stage reopens it', async () => {
    const d = await makeDeal();
    const won = (await move(d._id, { stageId: stageId(pipeline, 'Won') })).body.data;
    expect(won.status).toBe('won');
    expect(won.wonDate).toEqual(expect.any(String));
    const lost = (await move(d._id, { stageId: stageId(pipeline, 'Lost') })).body.data;
    expect(lost).toMatchObject({ status: 'lost', wonDate: null });
    const reopened = (await move(d._id, { stageId: stageId(pipeline, 'Negotiation') })).body.data;
    expect(reopened).toMatchObject({ status: 'open', wonDate: null, lostDate: null });
    await expectReopened(d._id, [
      'deal_created',
      'deal_updated',
      'deal_stage_changed',
      'deal_won',
      'deal_updated',
      'deal_stage_changed',
      'deal_lost',
      'deal_updated',
      'deal_stage_changed',
    ]);
  });

  it("to another flow's stage only with that flowId", async () => {
    const d = await makeDeal();
    const without = await move(d._id, { stageId: stageId(other, 'Due') });
    expectError(without, 400, /belongs to another flow; send flowId/);
    const mismatched = await move(d._id, { stageId: stageId(other, 'Due'), flowId: pipeline._id });
    expectError(mismatched, 400, /does not belong to flow/);
    const ok = await move(d._id, { stageId: stageId(other, 'Renewed'), flowId: other._id });
    expect(ok.body.data).toMatchObject({ flowId: other._id, stageId: stageId(other, 'Renewed'), status: 'won' });
    const evs = await events(d._id);
    expect(evs.find((e) => e.type === 'deal_stage_changed')!.payload).toMatchObject({
      flowId: other._id,
      fromFlowId: pipeline._id,
    });
  });

  it('moving to the stage it is in changes nothing', async () => {
    const d = await makeDeal();
    expect((await move(d._id, { stageId: d.stageId })).body.data).toEqual(d);
    expect(await types(d._id)).toEqual(['deal_created']);
  });

  const bad: [string, Record<string, unknown>, number, RegExp][] = [
    ['no stageId', {}, 400, /stageId/],
    ['malformed stageId', { stageId: 'proposal' }, 400, /stageId/],
    ['unknown stageId', { stageId: UNKNOWN_ID }, 400, /stageId: no stage/],
    ['unknown flowId', { stageId: 'LEAD', flowId: UNKNOWN_ID }, 400, /flowId: no flow/],
    ['malformed flowId', { stageId: 'LEAD', flowId: 'x' }, 400, /flowId/],
  ];
  it.each(bad)('%s → %d', async (_label, body, status, message) => {
    const d = await makeDeal();
    if (body.stageId === 'LEAD') body.stageId = stageId(pipeline, 'Qualified');
    const res = await move(d._id, body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatch(message);
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data.stageId).toBe(d.stageId);
  });

  it('404 for an unknown deal', async () => {
    expect((await move(UNKNOWN_ID, { stageId: stageId(pipeline, 'Won') })).status).toBe(404);
  });
});
