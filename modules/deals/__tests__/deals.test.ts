import type { Tenant, TestApp } from '../../../test/support/app';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import {
  countDeals,
  dealFeed,
  insertDealField,
  insertLead,
  insertUser,
  createDeal,
  stageId,
  UNKNOWN_ID,
  withDealFlows,
  type FlowView,
} from '../../../test/support/deals';
import { expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let pipeline: FlowView;
let other: FlowView;
withDealFlows((s) => ({ app, t, pipeline, other } = s));

const makeDeal = (body?: Record<string, unknown>, tenant: Tenant = t) => createDeal(tenant.http, body);
const types = async (id: string): Promise<string[]> => (await eventsFor(app.runtime.deps.orm, id)).map((e) => e.type);
const feed = (id: string) => dealFeed(t.http, id);

describe('POST /api/v1/deals', () => {
  it('creates a deal with every field; without flowId it enters the first stage of the default flow', async () => {
    const company = (await makeCompany(t.http)).body.data._id;
    const person = (await makePerson(t.http)).body.data._id;
    const lead = await insertLead(app, t);
    // Stored and answered as sent.
    const echoed = {
      priority: 'high',
      probability: 40,
      company,
      personRef: person,
      leadRef: lead,
      customFields: { source: 'fair', seats: 10 },
    };
    const res = await t.http.post('/api/v1/deals', {
      title: '  Big deal ',
      value: 12500.5,
      ...echoed,
      tags: ['hot', 'hot', ' q3 '],
    });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      title: 'Big deal',
      value: 12500.5,
      flowId: pipeline._id,
      stageId: stageId(pipeline, 'Lead'),
      ...echoed,
      tags: ['hot', 'q3'],
      status: 'open',
      wonDate: null,
      lostDate: null,
      ownerId: t.userId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await types(d._id)).toEqual(['deal_created', 'tag_added', 'tag_added']);
    const rows = await feed(d._id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'record_created',
      dealId: d._id,
      companyId: company,
      personId: person,
      leadId: lead,
      metadata: { stage: { title: 'Lead' } },
    });
  });

  it('accepts customFields as name/value pairs and stores a map', async () => {
    const d = await makeDeal({
      customFields: [
        { name: 'a', value: 1 },
        { name: 'b', value: null },
      ],
    });
    expect(d.customFields).toEqual({ a: 1 });
  });

  it('places by flowId (first open stage), by stageId (its flow), or both when they match', async () => {
    expect(await makeDeal({ flowId: other._id })).toMatchObject({ flowId: other._id, stageId: stageId(other, 'Due') });
    expect(await makeDeal({ stageId: stageId(other, 'Due') })).toMatchObject({
      flowId: other._id,
      stageId: stageId(other, 'Due'),
    });
    expect(await makeDeal({ flowId: pipeline._id, stageId: stageId(pipeline, 'Proposal') })).toMatchObject({
      flowId: pipeline._id,
      stageId: stageId(pipeline, 'Proposal'),
    });
  });

  it('a deal created in a won or lost stage, or with status won/lost, is closed with its date and event', async () => {
    const wonByStage = await makeDeal({ stageId: stageId(pipeline, 'Won') });
    expect(wonByStage).toMatchObject({ status: 'won', lostDate: null });
    expect(Date.now() - Date.parse(wonByStage.wonDate)).toBeLessThan(60_000);
    expect(await types(wonByStage._id)).toEqual(['deal_created', 'deal_won']);
    const lost = await makeDeal({ status: 'lost' });
    expect(lost).toMatchObject({ status: 'lost', wonDate: null, stageId: stageId(pipeline, 'Lead') });
    expect(await types(lost._id)).toEqual(['deal_created', 'deal_lost']);
    const backdated = await makeDeal({ status: 'won', wonDate: '2025-03-01T10:00:00Z' });
    expect(backdated.wonDate).toBe('2025-03-01T10:00:00.000Z');
  });

  it('ownerId must be a user of the workspace; it defaults to the caller', async () => {
    const colleague = await insertUser(app, t);
    expect((await makeDeal({ ownerId: colleague })).ownerId).toBe(colleague);
    const stranger = await app.tenant();
    expectError(await t.http.post('/api/v1/deals', { title: 'x', ownerId: stranger.userId }), 400, /ownerId: no user/);
  });

  it('references of another workspace are refused like unknown ones', async () => {
    const stranger = await app.tenant();
    const foreignCompany = (await makeCompany(stranger.http)).body.data._id;
    const foreignLead = await insertLead(app, stranger);
    const foreignFlow = (await stranger.http.get('/api/v1/flows')).body.data[0];
    for (const body of [
      { company: foreignCompany },
      { leadRef: foreignLead },
      { flowId: foreignFlow._id },
      { stageId: foreignFlow.stages[0].id },
    ]) {
      const res = await t.http.post('/api/v1/deals', { title: 'x', ...body });
      expect(res.status).toBe(400);
    }
  });

  const bad: [string, unknown, RegExp][] = [
    ['missing title', { value: 1 }, /title/],
    ['empty title', { title: '  ' }, /title/],
    ['title over 500', { title: 'x'.repeat(501) }, /title.*500/],
    ['negative value', { title: 'a', value: -1 }, /value: must be at least 0/],
    ['value as string', { title: 'a', value: '100' }, /value/],
    ['probability 101', { title: 'a', probability: 101 }, /probability: must be at most 100/],
    ['probability -1', { title: 'a', probability: -1 }, /probability/],
    ['priority urgent', { title: 'a', priority: 'urgent' }, /priority: must be one of low, medium, high/],
    ['status closed', { title: 'a', status: 'closed' }, /status/],
    ['unknown company', { title: 'a', company: UNKNOWN_ID }, /company: no company with id/],
    ['malformed company', { title: 'a', company: 'acme' }, /company: must be a 24-character hex id/],
    ['unknown person', { title: 'a', personRef: UNKNOWN_ID }, /personRef: no person/],
    ['malformed person', { title: 'a', personRef: '123' }, /personRef/],
    ['unknown lead', { title: 'a', leadRef: UNKNOWN_ID }, /leadRef: no lead/],
    ['malformed lead', { title: 'a', leadRef: 'lead-1' }, /leadRef/],
    ['unknown flow', { title: 'a', flowId: UNKNOWN_ID }, /flowId: no flow/],
    ['malformed flow', { title: 'a', flowId: 'sales' }, /flowId/],
    ['unknown stage', { title: 'a', stageId: UNKNOWN_ID }, /stageId: no stage/],
    ['unknown owner', { title: 'a', ownerId: UNKNOWN_ID }, /ownerId: no user/],
    ['malformed owner', { title: 'a', ownerId: 'me' }, /ownerId/],
    ['101 tags', { title: 'a', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, /tags/],
    ['customFields as string', { title: 'a', customFields: 'x' }, /customFields/],
    ['wonDate not a date', { title: 'a', status: 'won', wonDate: 'yesterday' }, /wonDate/],
    ['wonDate on an open deal', { title: 'a', wonDate: '2025-01-01' }, /wonDate: can only be set on a won deal/],
    ['status lost in a won stage', { title: 'a', stageId: 'WON', status: 'lost' }, /target stage is a won stage/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    const before = await countDeals(app, t.workspaceId);
    const payload = body as Record<string, unknown>;
    if (payload.stageId === 'WON') payload.stageId = stageId(pipeline, 'Won');
    const res = await t.http.post('/api/v1/deals', payload);
    expectError(res, 400, message);
    expect(await countDeals(app, t.workspaceId)).toBe(before);
  });

  it('accepts the boundaries: title of 500, value 0, probability 0 and 100', async () => {
    expect((await makeDeal({ title: 'x'.repeat(500), value: 0, probability: 100 })).title).toHaveLength(500);
    expect((await makeDeal({ probability: 0 })).probability).toBe(0);
  });

  it('stageId of another flow than flowId is 400; a flow without stages is 400', async () => {
    const res = await t.http.post('/api/v1/deals', {
      title: 'x',
      flowId: pipeline._id,
      stageId: stageId(other, 'Due'),
    });
    expectError(res, 400, /does not belong to flow/);
    const empty = (await t.http.post('/api/v1/flows', { title: 'Empty' })).body.data;
    expectError(await t.http.post('/api/v1/deals', { title: 'x', flowId: empty._id }), 400, /has no stages/);
  });

  it('validates custom field values against the deal definitions (type and required)', async () => {
    const mine = await app.tenant();
    await insertDealField(app, mine, 'seats', 'number');
    const wrong = await mine.http.post('/api/v1/deals', { title: 'x', customFields: { seats: 'many' } });
    expectError(wrong, 400, /customFields\.seats: must be a number/);
    await insertDealField(app, mine, 'region', 'text', { required: true });
    const missing = await mine.http.post('/api/v1/deals', { title: 'x', customFields: { seats: 3 } });
    expect(missing.body.error).toMatch(/customFields\.region: is required/);
    const d = await makeDeal({ customFields: { seats: 3, region: 'EU' } }, mine);
    expectError(
      await mine.http.put(`/api/v1/deals/${d._id}`, { customFields: { seats: 'x' } }),
      400,
      /customFields\.seats/,
    );
  });

  it('preview returns the proposed deal and writes nothing (not even the default flow)', async () => {
    const fresh = await app.tenant();
    const res = await fresh.http.post('/api/v1/deals?preview=true', { title: 'Maybe', value: 5 });
    expectOk(res, {
      preview: true,
      current: null,
      proposed: { title: 'Maybe', value: 5, status: 'open' },
    });
    expect(res.body.data.diff.title).toEqual({ from: null, to: 'Maybe' });
    const viaBody = await t.http.post('/api/v1/deals', { title: 'Maybe', preview: true });
    expect(viaBody.body.data.preview).toBe(true);
    expect(await countDeals(app, fresh.workspaceId)).toBe(0);
    const flows = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute('select id from flow where workspace_id = ?', [fresh.workspaceId]);
    expect(flows).toEqual([]);
  });
});

describe('GET / DELETE /api/v1/deals/:id', () => {
  it('gets a deal (fields= projection), 404s unknown/malformed ids, deletes with an event', async () => {
    const d = await makeDeal({ value: 7 });
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data).toEqual(d);
    const slim = await t.http.get(`/api/v1/deals/${d._id}?fields=title,value`);
    expect(slim.body.data).toEqual({ _id: d._id, title: 'Deal', value: 7 });
    expect((await t.http.get(`/api/v1/deals/${d._id}?fields=secret`)).status).toBe(400);
    for (const id of [UNKNOWN_ID, 'nope', `${d._id}0`]) {
      expectError(await t.http.get(`/api/v1/deals/${id}`), 404, /deal not found/);
    }
    const del = await t.http.delete(`/api/v1/deals/${d._id}`);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/deals/${d._id}`)).status).toBe(404);
    expect(await types(d._id)).toEqual(['deal_created', 'deal_deleted']);
  });

  it('activities exclude the history rows that activity-feed shows; both 404 for an unknown deal', async () => {
    const d = await makeDeal();
    await t.http.put(`/api/v1/deals/${d._id}`, { value: 3 });
    expect((await t.http.get(`/api/v1/deals/${d._id}/activities`)).body).toMatchObject({ data: [], total: 0 });
    const f = await t.http.get(`/api/v1/deals/${d._id}/activity-feed?limit=1`);
    expect(f.body).toMatchObject({ page: 1, limit: 1, total: 2 });
    expect(f.body.data[0].type).toBe('record_updated');
    for (const sub of ['activities', 'activity-feed'])
      expect((await t.http.get(`/api/v1/deals/${UNKNOWN_ID}/${sub}`)).status).toBe(404);
  });
});

describe("a deleted company's or person's deals", () => {
  it('stay, listed by the record until it goes, without the reference to it (in the same delete)', async () => {
    const company = (await makeCompany(t.http)).body.data._id;
    const person = (await makePerson(t.http)).body.data._id;
    const d = await makeDeal({ company, personRef: person });
    const ids = (res: { body: { data: { _id: string }[] } }) => res.body.data.map((x) => x._id);
    expect(ids(await t.http.get(`/api/v1/companies/${company}/deals`))).toEqual([d._id]);
    expect(ids(await t.http.get(`/api/v1/people/${person}/deals`))).toEqual([d._id]);
    expect((await t.http.delete(`/api/v1/people/${person}`)).status).toBe(200);
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data).toMatchObject({ company, personRef: null });
    expect((await t.http.delete(`/api/v1/companies/${company}`)).status).toBe(200);
    expect((await t.http.get(`/api/v1/deals/${d._id}`)).body.data).toMatchObject({ company: null, personRef: null });
    expect(await types(d._id)).toEqual(['deal_created']);
  });
});
