import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import type { TestUser } from '../../../test/support/users';
import { createFlow, makeSeller } from './support';
import { expectError, expectOk, expectQueriesRefused } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let seller: TestUser;
let flowId: string;
let stages: Record<string, string>;

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  seller = await makeSeller(app, t);
  ({ id: flowId, stages } = await createFlow(t.http, 'Report pipeline', [
    { title: 'New', probability: 10 },
    { title: 'Offer', probability: 50 },
    { title: 'Won', type: 'won' },
    { title: 'Lost', type: 'lost' },
  ]));
  const deal = async (title: string, stage: string, value: number, extra: Record<string, unknown> = {}) => {
    const res = await t.http.post('/api/v1/deals', { title, flowId, stageId: stages[stage], value, ...extra });
    expect(res.status).toBe(201);
    return res.body.data._id as string;
  };
  await deal('A', 'New', 1000);
  await deal('B', 'New', 500, { probability: 40 });
  await deal('C', 'Offer', 2000.5, { ownerId: seller.userId });
  await deal('D', 'Won', 3000, { ownerId: seller.userId });
  await deal('E', 'Lost', 700);
  const lead = async (body: Record<string, unknown>) =>
    (await t.http.post('/api/v1/leads', { title: 'L', ...body })).body.data._id as string;
  const converted = await lead({ status: 'qualified', source: 'web', value: 100 });
  await lead({ status: 'new', source: 'web' });
  await lead({ status: 'new' });
  await lead({ status: 'new', source: 'fair', ownerId: seller.userId });
  await t.http.post('/api/v1/deals', { title: 'From lead', flowId, stageId: stages.New, value: 0, leadRef: converted });
  await seller.http.post('/api/v1/activities', { type: 'call', summary: 'Called', ownerId: seller.userId });
  await seller.http.post('/api/v1/activities', { type: 'call', summary: 'Called again' });
  await seller.http.post('/api/v1/activities', { type: 'meeting', summary: 'Met' });
});

describe('GET /api/v1/reports/pipeline', () => {
  it('gives count, value and weighted value per stage with stageId and stageName, and totals by status', async () => {
    const res = await t.http.get(`/api/v1/reports/pipeline?flowId=${flowId}`);
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.data.byStage.map((s: any) => [s.stageName, s]));
    // New: A 1000 × 10 % + B 500 × 40 % (own probability wins) + "From lead" 0 = 100 + 200.
    expect(byName.New).toMatchObject({ stageId: stages.New, flowId, count: 3, value: 1500, weightedValue: 300 });
    expect(byName.Offer).toMatchObject({ stageId: stages.Offer, count: 1, value: 2000.5, weightedValue: 1000.25 });
    expect(byName.Won).toMatchObject({ count: 1, value: 3000, weightedValue: 3000, stageType: 'won' });
    expect(byName.Lost).toMatchObject({ count: 1, value: 700, weightedValue: 0, stageType: 'lost' });
    expect(res.body.data.totals).toMatchObject({
      count: 6,
      value: 7200.5,
      weightedValue: 4300.25,
      open: { count: 4, value: 3500.5 },
      won: { count: 1, value: 3000 },
      lost: { count: 1, value: 700 },
      winRate: 50,
    });
  });

  it('filters by owner and keeps empty stages; an unknown flow or owner is 400 naming the field; bad parameters are 400', async () => {
    const res = await t.http.get(`/api/v1/reports/pipeline?flowId=${flowId}&ownerId=${seller.userId}`);
    const counts = Object.fromEntries(res.body.data.byStage.map((s: any) => [s.stageName, s.count]));
    expect(counts).toEqual({ New: 0, Offer: 1, Won: 1, Lost: 0 });
    expect(res.body.data.totals.winRate).toBe(100);
    const unknownFlow = await t.http.get('/api/v1/reports/pipeline?flowId=0123456789abcdef01234567');
    expect([unknownFlow.status, unknownFlow.body.error]).toEqual([
      400,
      'flowId: no flow with id 0123456789abcdef01234567 in this workspace',
    ]);
    const unknownOwner = await t.http.get('/api/v1/reports/leads?ownerId=0123456789abcdef01234567');
    expect(unknownOwner.status).toBe(400);
    expect(unknownOwner.body.details).toEqual([
      { path: 'ownerId', error: 'no user with id 0123456789abcdef01234567 in this workspace' },
    ]);
    for (const q of ['flowId=x', 'ownerId=1', 'dateFrom=yesterday', 'dateTo=2026-13-45']) {
      expectError(await t.http.get(`/api/v1/reports/pipeline?${q}`), 400);
    }
  });

  it('counts only deals created in the range; a future range is empty', async () => {
    const res = await t.http.get('/api/v1/reports/pipeline?dateFrom=2099-01-01');
    expect(res.body.data.totals.count).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const all = await t.http.get(`/api/v1/reports/pipeline?flowId=${flowId}&startDate=2020-01-01&endDate=2099-12-31`);
    expect(all.body.data.totals.count).toBe(6);
    expect(all.body.data.dateFrom).toBe('2020-01-01');
    expect(today.length).toBe(10);
  });

  it('another workspace sees none of these deals', async () => {
    const stranger = await app.tenant();
    const res = await stranger.http.get('/api/v1/reports/pipeline');
    expect(res.body.data.totals.count).toBe(0);
    // Another workspace's flow is no flow of this one: 400 naming the filter, as for any reference.
    expect((await stranger.http.get(`/api/v1/reports/pipeline?flowId=${flowId}`)).status).toBe(400);
    const history = await stranger.http.get(
      `/api/v1/reports/history?stat=deals&startDate=2026-01-01&endDate=2026-12-31&userId=${seller.userId}`,
    );
    expect([history.status, history.body.details?.[0]?.path]).toEqual([400, 'userId']);
  });
});

describe('GET /api/v1/reports/leads', () => {
  it('counts by status and source, converted leads and the conversion rate', async () => {
    const res = await t.http.get('/api/v1/reports/leads');
    expectOk(res, { total: 4, value: 100, converted: 1, conversionRate: 25 });
    expect(res.body.data.byStatus).toEqual([
      { status: 'new', count: 3, value: 0 },
      { status: 'qualified', count: 1, value: 100 },
    ]);
    expect(res.body.data.bySource).toEqual([
      { source: 'web', count: 2 },
      { source: 'fair', count: 1 },
      { source: null, count: 1 },
    ]);
    expect(res.body.data.scoreDistribution.reduce((s: number, b: any) => s + b.count, 0)).toBe(4);
    expect((await t.http.get(`/api/v1/reports/leads?ownerId=${seller.userId}`)).body.data.total).toBe(1);
  });
});

describe('GET /api/v1/reports/organization and /users', () => {
  it('gives workspace totals', async () => {
    const res = await t.http.get('/api/v1/reports/organization');
    expect(res.body.data).toMatchObject({
      leads: 4,
      users: 2,
      activities: 3,
      deals: { open: { count: 4, value: 3500.5 }, won: { count: 1, value: 3000 }, lost: { count: 1, value: 700 } },
    });
  });

  it('lists every user with their figures and one user in detail', async () => {
    const res = await t.http.get('/api/v1/reports/users');
    const sal = res.body.data.users.find((u: any) => u.userId === seller.userId);
    expect(sal).toMatchObject({
      name: 'Sal Seller',
      deals: { open: 1, won: 1, lost: 0, wonValue: 3000, openValue: 2000.5 },
      leads: 1,
      activities: 3,
    });
    const one = await t.http.get(`/api/v1/reports/users/${seller.userId}`);
    expect(one.body.data).toMatchObject({
      userId: seller.userId,
      activities: 3,
      activitiesByType: [
        { type: 'call', count: 2 },
        { type: 'meeting', count: 1 },
      ],
    });
    expect(typeof one.body.data.lastActivityAt).toBe('string');
    const stranger = await app.tenant();
    expect((await stranger.http.get(`/api/v1/reports/users/${seller.userId}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/reports/users/nope')).status).toBe(404);
  });
});

describe('GET /api/v1/reports/history', () => {
  it('gives zero-filled daily counts in the workspace time zone', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Copenhagen' }).format(new Date());
    const start = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const res = await t.http.get(`/api/v1/reports/history?stat=leads&startDate=${start}&endDate=${today}`);
    expectOk(res, { stat: 'leads', timezone: 'Europe/Copenhagen', total: 4, endDate: today });
    expect(res.body.data.series.length).toBeGreaterThanOrEqual(3);
    expect(res.body.data.series.at(-1)).toEqual({ date: today, count: 4 });
    const aliases = await t.http.get(
      `/api/v1/reports/history?stat=deals&from=${start}&to=${today}&userId=${seller.userId}`,
    );
    expect(aliases.body.data.total).toBe(2);
    const acts = await t.http.get(`/api/v1/reports/history?stat=activities&dateFrom=${today}&dateTo=${today}`);
    expect(acts.body.data.series).toEqual([{ date: today, count: 3 }]);
  });

  it('answers 400 for a missing or bad stat or bound, a reversed range and more than 366 days', async () => {
    await expectQueriesRefused(t.http, '/api/v1/reports/history?', [
      'startDate=2026-01-01&endDate=2026-01-31',
      'stat=offers&startDate=2026-01-01&endDate=2026-01-31',
      'stat=deals&endDate=2026-01-31',
      'stat=deals&startDate=2026-01-01',
      'stat=deals&startDate=2026-02-01&endDate=2026-01-31',
      'stat=deals&startDate=2025-01-01&endDate=2026-01-02',
      'stat=deals&startDate=x&endDate=2026-01-02',
    ]);
    expect(
      (await t.http.get('/api/v1/reports/history?stat=deals&startDate=2025-01-01&endDate=2025-12-31')).body.data.series,
    ).toHaveLength(365);
    expect(
      (await t.http.get('/api/v1/reports/history?stat=deals&startDate=2024-01-01&endDate=2024-12-31')).body.data.series,
    ).toHaveLength(366);
  });
});
