import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeUser, type TestUser } from '../../../test/support/users';
import { expectOk, expectQueriesRefused } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let seller: TestUser;
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Copenhagen' }).format(new Date());

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  seller = await makeUser(app, t.workspaceId, 'member', { firstName: 'Sal', email: 'sal@acme.test' });
  for (const body of [{ value: 100 }, { value: 250, ownerId: seller.userId }, { value: 50, status: 'won' }]) {
    expect((await t.http.post('/api/v1/deals', { title: 'D', ...body })).status).toBe(201);
  }
  for (const source of ['web', 'web', 'fair']) await t.http.post('/api/v1/leads', { title: 'L', source });
});

describe('GET /api/v1/metrics (catalog)', () => {
  it('lists entries with the spec fields, filters by category, pages', async () => {
    const res = await t.http.get('/api/v1/metrics');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 100 });
    const entry = res.body.data.find((m: any) => m.key === 'deals.created');
    expect(entry).toEqual({
      key: 'deals.created',
      label: 'Deals created',
      description: expect.any(String),
      category: 'sales',
      format: 'integer',
      mode: 'flow',
      measureType: 'count',
      dimensions: expect.arrayContaining([{ key: 'owner', label: 'Owner' }]),
    });
    const sales = await t.http.get('/api/v1/metrics?category=sales');
    expect(sales.body.data.every((m: any) => m.category === 'sales')).toBe(true);
    expect((await t.http.get('/api/v1/metrics?limit=2')).body.data).toHaveLength(2);
    expect((await t.http.get('/api/v1/metrics?limit=101')).status).toBe(400);
  });
});

describe('GET /api/v1/metrics/query', () => {
  it('answers total and zero-filled daily buckets in the requested zone', async () => {
    const from = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const res = await t.http.get(`/api/v1/metrics/query?metricKey=deals.created&from=${from}&to=${today()}`);
    expectOk(res, {
      metricKey: 'deals.created',
      total: 3,
      granularity: 'day',
      timezone: 'Europe/Copenhagen',
      format: 'integer',
    });
    expect(res.body.data.series.at(-1)).toEqual({ bucket: today(), value: 3 });
    expect(res.body.data.series.slice(0, -1).every((b: any) => b.value === 0)).toBe(true);
    const value = await t.http.get(`/api/v1/metrics/query?metricKey=deals.created_value&from=${today()}`);
    expect(value.body.data.total).toBe(400);
  });

  it('breaks down by a dimension with labels, compares with the previous period', async () => {
    const res = await t.http.get(
      `/api/v1/metrics/query?metricKey=deals.created_value&from=${today()}&dimension=owner&compareTo=previous_period`,
    );
    expect(res.status).toBe(200);
    const sal = res.body.data.breakdown.find((b: any) => b.dimensionValue === seller.userId);
    expect(sal).toMatchObject({ dimensionLabel: 'Sal', total: 250 });
    expect(res.body.data.compare).toMatchObject({ compareTo: 'previous_period', total: 0 });
    expect(res.body.data.delta).toEqual({ abs: 400, pct: null });
    const bySource = await t.http.get(`/api/v1/metrics/query?metricKey=leads.created&from=${today()}&dimension=source`);
    expect(bySource.body.data.breakdown.map((b: any) => [b.dimensionValue, b.total])).toEqual([
      ['web', 2],
      ['fair', 1],
    ]);
  });

  it('snapshot metrics ignore the window', async () => {
    const res = await t.http.get('/api/v1/metrics/query?metricKey=deals.open_value&from=2000-01-01&to=2000-01-02');
    expect(res.body.data).toMatchObject({ mode: 'snapshot', total: 350, series: [] });
  });

  it('CSV output carries the spec columns', async () => {
    const res = await t.http.get(
      `/api/v1/metrics/query?metricKey=deals.created&from=${today()}&format=csv&dimension=status`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const lines = (res.body as string).trim().split('\n');
    expect(lines[0]).toBe(
      'metricKey,label,granularity,period,bucket,dimension,dimensionValue,dimensionLabel,value,format',
    );
    expect(lines).toContain(`deals.created,Deals created,day,current,${today()},,,,3,integer`);
    expect(lines).toContain(`deals.created,Deals created,day,current,${today()},status,open,open,2,integer`);
  });

  it('refuses bad queries with 400', async () => {
    await expectQueriesRefused(t.http, '/api/v1/metrics/query?', [
      'from=2026-01-01',
      'metricKey=deals.created',
      'metricKey=nope&from=2026-01-01',
      'metricKey=deals.created&from=x',
      'metricKey=deals.created&from=2026-01-01&granularity=minute',
      'metricKey=deals.created&from=2026-01-01&tz=Mars/Base',
      'metricKey=deals.created&from=2026-01-01&dimension=color',
      'metricKey=deals.created&from=2026-01-02&to=2026-01-01',
      'metricKey=deals.created&from=2020-01-01&to=2026-01-01&granularity=hour',
      'metricKey=deals.created&from=2026-01-01&format=xml',
    ]);
  });
});

describe('POST /api/v1/metrics/query (batch)', () => {
  it('answers in request order with per-entry errors; 25 accepted, 26 refused', async () => {
    const res = await t.http.post('/api/v1/metrics/query', {
      requests: [
        { metricKey: 'deals.created', from: today() },
        { metricKey: 'nope', from: today() },
        { metricKey: 'leads.created', from: today(), dimension: 'color' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.results[0]).toMatchObject({ metricKey: 'deals.created', total: 3 });
    expect(res.body.data.results[1]).toEqual({ metricKey: 'nope', error: expect.any(String), code: 'unknown_metric' });
    expect(res.body.data.results[2]).toMatchObject({ metricKey: 'leads.created', code: 'invalid_query' });
    const many = (n: number) => ({
      requests: Array.from({ length: n }, () => ({ metricKey: 'leads.created', from: today() })),
    });
    expect((await t.http.post('/api/v1/metrics/query', many(25))).body.data.results).toHaveLength(25);
    expect((await t.http.post('/api/v1/metrics/query', many(26))).status).toBe(400);
    expect((await t.http.post('/api/v1/metrics/query', { requests: [] })).status).toBe(400);
  });
});

describe('POST /api/v1/metrics/points', () => {
  it('upserts daily points idempotently and serves them as external:<seriesKey>', async () => {
    const body = {
      seriesKey: 'ads.spend',
      label: 'Ad spend',
      format: 'currency',
      points: [
        { date: '2026-11-01', value: 10, dimensions: { channel: 'search' } },
        { date: '2026-11-01', value: 5, dimensions: { channel: 'social' } },
        { date: '2026-11-02', value: 7 },
      ],
    };
    const first = await t.http.post('/api/v1/metrics/points', body);
    expectOk(first, { metricKey: 'external:ads.spend', upserted: 3, inserted: 3, updated: 0 });
    const again = await t.http.post('/api/v1/metrics/points', {
      ...body,
      points: [{ date: '2026-11-01', value: 12, dimensions: { channel: 'search' } }],
    });
    expect(again.body.data).toMatchObject({ inserted: 0, updated: 1 });
    const catalog = await t.http.get('/api/v1/metrics?category=external');
    expect(catalog.body.data).toEqual([
      expect.objectContaining({
        key: 'external:ads.spend',
        label: 'Ad spend',
        format: 'currency',
        measureType: 'external',
        dimensions: [{ key: 'channel', label: 'channel' }],
      }),
    ]);
    const q = await t.http.get(
      '/api/v1/metrics/query?metricKey=external:ads.spend&from=2026-11-01&to=2026-11-03&dimension=channel',
    );
    expect(q.body.data).toMatchObject({
      total: 24,
      series: [
        { bucket: '2026-11-01', value: 17 },
        { bucket: '2026-11-02', value: 7 },
        { bucket: '2026-11-03', value: 0 },
      ],
    });
    expect(q.body.data.breakdown.map((b: any) => [b.dimensionValue, b.total])).toEqual([
      ['search', 12],
      [null, 7],
      ['social', 5],
    ]);
    const month = await t.http.get(
      '/api/v1/metrics/query?metricKey=external:ads.spend&from=2026-11-01&to=2026-11-30&granularity=month',
    );
    expect(month.body.data.series).toEqual([{ bucket: '2026-11-01', value: 24 }]);
    const stranger = await app.tenant();
    expect((await stranger.http.get('/api/v1/metrics/query?metricKey=external:ads.spend&from=2026-11-01')).status).toBe(
      400,
    );
  });

  it('enforces the series key rule and 5,000 points per call; needs write', async () => {
    const points = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        date: new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10),
        value: i,
      }));
    expect(
      (await t.http.post('/api/v1/metrics/points', { seriesKey: 'big', points: points(5000) })).body.data.upserted,
    ).toBe(5000);
    for (const body of [
      { seriesKey: 'big', points: points(5001) },
      { seriesKey: 'has space', points: points(1) },
      { seriesKey: 'x', points: [] },
      { points: points(1) },
      { seriesKey: 'x', points: [{ date: 'yesterday', value: 1 }] },
      { seriesKey: 'x', points: [{ date: '2026-01-01', value: '1' }] },
      { seriesKey: 'x', format: 'money', points: points(1) },
    ]) {
      const res = await t.http.post('/api/v1/metrics/points', body);
      expect(res.status).toBe(400);
    }
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.post('/api/v1/metrics/points', { seriesKey: 'x', points: points(1) })).status).toBe(403);
  });
});
