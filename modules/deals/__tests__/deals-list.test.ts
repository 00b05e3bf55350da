import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { insertUser, defaultFlowAnd, stageId, type FlowView } from '../../../test/support/deals';
import { expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let pipeline: FlowView;
let other: FlowView;
let colleague: string;
const pause = () => new Promise((r) => setTimeout(r, 15));
const deals: Record<string, any> = {};
let mark: string;

// Five deals, created in this order: alpha, bravo, charlie, delta (after `mark`), echo.
withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  colleague = await insertUser(app, t);
  [pipeline, other] = await defaultFlowAnd(t.http, 'Other', [{ title: 'First' }, { title: 'Second' }]);
  const create = async (key: string, body: Record<string, unknown>) => {
    const res = await t.http.post('/api/v1/deals', body);
    expect(res.status).toBe(201);
    deals[key] = res.body.data;
    await pause();
  };
  await create('alpha', { title: 'Alpha rollout', value: 300, stageId: stageId(pipeline, 'Proposal') });
  await create('bravo', {
    title: 'bravo upgrade',
    value: 100,
    status: 'won',
    wonDate: '2025-05-01T00:00:00Z',
    ownerId: colleague,
  });
  await create('charlie', {
    title: 'Charlie 100% deal',
    stageId: stageId(pipeline, 'Lost'),
    lostDate: '2025-04-01T00:00:00Z',
    status: 'lost',
  });
  mark = new Date().toISOString();
  await pause();
  await create('delta', { title: 'Delta', value: 200, flowId: other._id, ownerId: colleague });
  await create('echo', {
    title: 'Echo',
    value: 50,
    status: 'won',
    wonDate: '2025-06-01T00:00:00Z',
    stageId: stageId(pipeline, 'Qualified'),
  });
  // Touch alpha last so updatedAt differs from createdAt order.
  await t.http.put(`/api/v1/deals/${deals.alpha._id}`, { probability: 50 });
});

const titles = async (qs: string): Promise<string[]> => {
  const res = await t.http.get(`/api/v1/deals?${qs}`);
  expect(res.status).toBe(200);
  return res.body.data.map((d: any) => d.title.split(' ')[0].toLowerCase());
};

describe('GET /api/v1/deals', () => {
  it('answers { data, page, limit, total, view } newest first, paginated', async () => {
    const res = await t.http.get('/api/v1/deals?limit=2&page=2');
    expect(res.body).toMatchObject({ page: 2, limit: 2, total: 5, view: 'full' });
    expect(res.body.data.map((d: any) => d._id)).toEqual([deals.charlie._id, deals.bravo._id]);
    expect(await titles('')).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
  });

  it.each([
    ['status=open', ['delta', 'alpha']],
    ['status=won', ['echo', 'bravo']],
    ['status=lost', ['charlie']],
    ['q=ALPHA', ['alpha']],
    ['q=100%25', ['charlie']],
    ['q=rollout', ['alpha']],
  ])('filters by %s', async (qs, expected) => {
    expect(await titles(qs)).toEqual(expected);
  });

  it('filters by flowId / flowRef, stageId / stage, ownerId / owner (same results for each alias)', async () => {
    for (const key of ['flowId', 'flowRef']) expect(await titles(`${key}=${other._id}`)).toEqual(['delta']);
    for (const key of ['stageId', 'stage'])
      expect(await titles(`${key}=${stageId(pipeline, 'Proposal')}`)).toEqual(['alpha']);
    for (const key of ['ownerId', 'owner']) expect(await titles(`${key}=${colleague}`)).toEqual(['delta', 'bravo']);
    expect(await titles(`ownerId=${t.userId}&status=won`)).toEqual(['echo']);
    expect(await titles(`flowId=${other._id}&flowRef=${other._id}`)).toEqual(['delta']);
  });

  it('filters by dates: updatedSince (oldest change first), createdAfter, dateFrom/dateTo and their aliases', async () => {
    expect(await titles(`updatedSince=${encodeURIComponent(mark)}`)).toEqual(['delta', 'echo', 'alpha']);
    expect(await titles(`createdAfter=${encodeURIComponent(mark)}`)).toEqual(['echo', 'delta']);
    for (const key of ['dateFrom', 'startDate', 'from'])
      expect(await titles(`${key}=${encodeURIComponent(mark)}`)).toEqual(['echo', 'delta']);
    for (const key of ['dateTo', 'endDate', 'to'])
      expect(await titles(`${key}=${encodeURIComponent(mark)}`)).toEqual(['charlie', 'bravo', 'alpha']);
    expect(await titles(`dateTo=${new Date().toISOString().slice(0, 10)}`)).toHaveLength(5);
  });

  it.each([
    ['title', 'asc', ['alpha', 'bravo', 'charlie', 'delta', 'echo']],
    ['title', 'desc', ['echo', 'delta', 'charlie', 'bravo', 'alpha']],
    ['value', 'desc', ['alpha', 'delta', 'bravo', 'echo', 'charlie']],
    ['value', 'asc', ['echo', 'bravo', 'delta', 'alpha', 'charlie']],
    ['createdAt', 'asc', ['alpha', 'bravo', 'charlie', 'delta', 'echo']],
    ['createdAt', 'desc', ['echo', 'delta', 'charlie', 'bravo', 'alpha']],
    ['updatedAt', 'desc', ['alpha', 'echo', 'delta', 'charlie', 'bravo']],
    ['updatedAt', 'asc', ['bravo', 'charlie', 'delta', 'echo', 'alpha']],
    ['status', 'asc', ['charlie', 'alpha', 'delta', 'bravo', 'echo']],
    ['status', 'desc', ['echo', 'bravo', 'delta', 'alpha', 'charlie']],
    ['wonDate', 'desc', ['echo', 'bravo', 'delta', 'charlie', 'alpha']],
    ['wonDate', 'asc', ['bravo', 'echo', 'alpha', 'charlie', 'delta']],
    ['lostDate', 'desc', ['charlie', 'echo', 'delta', 'bravo', 'alpha']],
    ['stage', 'asc', ['bravo', 'delta', 'echo', 'alpha', 'charlie']],
    ['stage', 'desc', ['charlie', 'alpha', 'echo', 'delta', 'bravo']],
  ])('sortBy=%s&sortOrder=%s', async (sortBy, sortOrder, expected) => {
    expect(await titles(`sortBy=${sortBy}&sortOrder=${sortOrder}`)).toEqual(expected);
  });

  it('sortOrder defaults to asc for title and desc for value', async () => {
    expect(await titles('sortBy=title')).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(await titles('sortBy=value')).toEqual(['alpha', 'delta', 'bravo', 'echo', 'charlie']);
  });

  it('view=summary and fields= project the rows; view is echoed', async () => {
    const summary = await t.http.get('/api/v1/deals?view=summary&limit=1');
    expect(summary.body.view).toBe('summary');
    expect(Object.keys(summary.body.data[0]).sort()).toEqual(
      ['_id', 'company', 'flowId', 'ownerId', 'personRef', 'stageId', 'status', 'title', 'updatedAt', 'value'].sort(),
    );
    const fields = await t.http.get('/api/v1/deals?fields=title,wonDate&limit=1');
    expect(fields.body.data[0]).toEqual({ _id: deals.echo._id, title: 'Echo', wonDate: '2025-06-01T00:00:00.000Z' });
  });

  it('accepts limit=100', async () => {
    expect((await t.http.get('/api/v1/deals?limit=100')).body.limit).toBe(100);
  });

  const badQueries: [string, RegExp][] = [
    ['search=alpha', /search/],
    ['sort=title', /sort/],
    ['flow=abc', /flow/],
    ['limit=101', /limit must be at most 100/],
    ['limit=0', /limit/],
    ['page=0', /page/],
    ['status=closed', /status/],
    ['sortBy=owner', /sortBy/],
    ['sortOrder=up', /sortOrder/],
    ['view=tiny', /view/],
    ['fields=title,secret', /unknown field/],
    ['flowId=abc', /flowId/],
    ['stage=abc', /stage/],
    ['owner=me', /owner/],
    ['updatedSince=yesterday', /updatedSince/],
    ['dateFrom=2025-13-40', /dateFrom/],
    ['from=never', /from/],
    ['flowId=0123456789abcdef01234567&flowRef=0123456789abcdef01234568', /flowRef: conflicts with flowId/],
  ];
  it.each(badQueries)('400 for ?%s, naming the parameter', async (qs, message) => {
    expectError(await t.http.get(`/api/v1/deals?${qs}`), 400, message);
  });

  it('another workspace sees none of these deals', async () => {
    const stranger = await app.tenant();
    expect((await stranger.http.get('/api/v1/deals?limit=100')).body).toMatchObject({ data: [], total: 0 });
  });
});
