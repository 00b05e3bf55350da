import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makeLead, makePerson } from '../../../test/support/factories';
import { expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let deals: any[];
const PRIORITIES = ['low', 'medium', 'high', null];

withTestApp((s) => ({ app, t } = s), { tenant: 'Export' });
beforeAll(async () => {
  // 25 deals with repeated and missing values, so sorting needs the _id tie-break and nulls-last rule.
  const rows = Array.from({ length: 25 }, (_, i) => ({
    title: `Deal ${String(i).padStart(2, '0')}`,
    ...(i % 5 === 4 ? {} : { value: (i % 7) * 100 }),
    ...(PRIORITIES[i % 4] ? { priority: PRIORITIES[i % 4] } : {}),
    tags: i % 3 === 0 ? ['hot', 'q1'] : ['cold'],
  }));
  const res = await t.http.post('/api/v1/import/deals', { rows });
  expect(res.body.data.created).toBe(25);
  deals = (await t.http.get('/api/v1/deals?limit=100')).body.data;
});

const ids = (rows: any[]): string[] => rows.map((r) => r._id);
const byId = (a: any, b: any): number => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

describe('POST /api/v1/export/deals paging', () => {
  it('walks 25 rows with limit 10 by cursor: hasMore, nextCursor, total, _id order, no overlap', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const pages: any[] = [];
    do {
      const res = await t.http.post('/api/v1/export/deals', { limit: 10, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      pages.push(res.body);
      seen.push(...ids(res.body.data));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(pages.map((p) => [p.data.length, p.hasMore, p.total, p.limit])).toEqual([
      [10, true, 25, 10],
      [10, true, 25, 10],
      [5, false, 25, 10],
    ]);
    expect(pages[0].nextCursor).toBe(pages[0].data[9]._id);
    expect(pages[2].nextCursor).toBeNull();
    expect(seen).toEqual(ids([...deals].sort(byId)));
  });

  it('offset paging with page or skip matches the cursor pages', async () => {
    const all = ids([...deals].sort(byId));
    const page2 = await t.http.post('/api/v1/export/deals', { limit: 10, page: 2 });
    expect(page2.body).toMatchObject({ page: 2, hasMore: true, total: 25 });
    expect(ids(page2.body.data)).toEqual(all.slice(10, 20));
    const skip = await t.http.post('/api/v1/export/deals', { limit: 5, skip: 22 });
    expect(skip.body).toMatchObject({ skip: 22, hasMore: false, nextCursor: null });
    expect(ids(skip.body.data)).toEqual(all.slice(22));
  });

  it.each([
    ['value', 'desc'],
    ['value', 'asc'],
    ['title', 'desc'],
    ['createdAt', 'desc'],
  ])('keyset paging by %s %s visits every row once in (sortBy, _id) order, nulls last', async (sortBy, sortOrder) => {
    const field = sortBy;
    const dir = sortOrder === 'asc' ? 1 : -1;
    const expected = [...deals].sort((a, b) => {
      const [x, y] = [a[field], b[field]];
      if (x === y) return dir * byId(a, b);
      if (x === null) return 1;
      if (y === null) return -1;
      return dir * (x < y ? -1 : 1);
    });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await t.http.post('/api/v1/export/deals', {
        limit: 7,
        sortBy: field,
        sortOrder,
        fields: ['title'],
        ...(cursor ? { cursor } : {}),
      });
      expect(res.status).toBe(200);
      seen.push(...ids(res.body.data));
      cursor = res.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(ids(expected));
  });

  it('accepts paging parameters in the query string (the body wins)', async () => {
    const res = await t.http.post('/api/v1/export/deals?limit=3&sortOrder=desc', {});
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data[0]._id).toBe(ids([...deals].sort(byId)).at(-1));
    expect((await t.http.post('/api/v1/export/deals?limit=3', { limit: 4 })).body.data).toHaveLength(4);
  });
});

describe('fields, filters, dates and the row shape', () => {
  it('rows carry the same fields and values as GET /deals/:id (dates as ISO strings)', async () => {
    const res = await t.http.post('/api/v1/export/deals', { limit: 1, filters: { tags: 'hot' } });
    const row = res.body.data[0];
    const read = (await t.http.get(`/api/v1/deals/${row._id}`)).body.data;
    for (const [key, value] of Object.entries(row)) expect([key, value]).toEqual([key, read[key]]);
    expect(Object.keys(row).length).toBeGreaterThanOrEqual(18);
    expect(row.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('fields projection: array or comma string, _id always included; unknown field 400', async () => {
    for (const fields of [['title', 'value'], 'title, value']) {
      const res = await t.http.post('/api/v1/export/deals', { limit: 2, fields });
      expect(res.body.data.map((r: any) => Object.keys(r).sort())).toEqual([
        ['_id', 'title', 'value'],
        ['_id', 'title', 'value'],
      ]);
    }
    expectError(
      await t.http.post('/api/v1/export/deals', { fields: ['title', 'workspaceId'] }),
      400,
      /unknown field\(s\) workspaceId/,
    );
  });

  it.each([
    [{ tags: 'hot' }, (d: any) => d.tags.includes('hot')],
    [{ tags: ['hot', 'q1'] }, (d: any) => d.tags.includes('hot') && d.tags.includes('q1')],
    [{ priority: ['high', 'low'] }, (d: any) => ['high', 'low'].includes(d.priority)],
    [{ priority: null }, (d: any) => d.priority === null],
    [{ status: 'open', priority: 'medium' }, (d: any) => d.status === 'open' && d.priority === 'medium'],
    [{ status: 'won' }, () => false],
  ])('filters %j', async (filters, predicate) => {
    const res = await t.http.post('/api/v1/export/deals', { filters, limit: 100 });
    expect(res.status).toBe(200);
    const expected = deals.filter(predicate);
    expect(res.body.total).toBe(expected.length);
    expect(ids(res.body.data).sort()).toEqual(ids(expected).sort());
  });

  it('dateFrom/dateTo filter on createdAt (a bare dateTo is the whole day)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await t.http.post('/api/v1/export/deals', { dateTo: yesterday })).body.total).toBe(0);
    expect((await t.http.post('/api/v1/export/deals', { dateFrom: today, dateTo: today })).body.total).toBe(25);
    expect(
      (await t.http.post('/api/v1/export/deals', { dateFrom: new Date(Date.now() + 60_000).toISOString() })).body.total,
    ).toBe(0);
  });
});

describe('limits and bad input', () => {
  it('limit 10000 is accepted, 10001 refused', async () => {
    const max = await t.http.post('/api/v1/export/deals', { limit: 10_000 });
    expect(max.status).toBe(200);
    expect(max.body).toMatchObject({ limit: 10_000, total: 25, hasMore: false });
    const over = await t.http.post('/api/v1/export/deals', { limit: 10_001 });
    expectError(over, 400, /limit: must be at most 10000/);
    expect((await t.http.post('/api/v1/export/deals?limit=10001', {})).status).toBe(400);
  });

  it.each([
    ['limit 0', { limit: 0 }, /limit/],
    ['limit as text', { limit: 'many' }, /limit/],
    ['page 0', { page: 0 }, /page/],
    ['skip -1', { skip: -1 }, /skip/],
    ['page and skip', { page: 2, skip: 3 }, /send either page or skip/],
    ['cursor with page', { cursor: '0123456789abcdef01234567', page: 2 }, /cursor: cannot be combined/],
    ['malformed cursor', { cursor: 'abc' }, /cursor/],
    ['unknown cursor with a sort', { cursor: '0123456789abcdef01234567', sortBy: 'value' }, /cursor: no record/],
    ['unknown sortBy', { sortBy: 'workspaceId' }, /sortBy: must be one of/],
    ['bad sortOrder', { sortOrder: 'up' }, /sortOrder/],
    ['unknown filter', { filters: { workspaceId: 'x' } }, /unknown filter\(s\) workspaceId/],
    ['filter as object value', { filters: { status: { $ne: 'open' } } }, /filters\.status/],
    ['filters not an object', { filters: 'open' }, /filters/],
    ['bad dateFrom', { dateFrom: 'yesterday' }, /dateFrom/],
  ])('400 for %s', async (_label, body, message) => {
    expectError(await t.http.post('/api/v1/export/deals', body), 400, message);
  });

  it('is POST only and needs the export scope and the admin or owner role', async () => {
    expect((await t.http.get('/api/v1/export/deals')).status).toBe(405);
    const reader = await app.key(t.workspaceId, ['read', 'write'], 'owner');
    expect((await reader.post('/api/v1/export/deals', {})).status).toBe(403);
    const member = await app.key(t.workspaceId, ['export'], 'member');
    expect((await member.post('/api/v1/export/deals', {})).status).toBe(403);
    expect((await member.post('/api/v1/export/lists/0123456789abcdef01234567', {})).status).toBe(403);
    const admin = await app.key(t.workspaceId, ['export'], 'admin');
    expect((await admin.post('/api/v1/export/deals', { limit: 1 })).status).toBe(200);
  });
});

describe('other record types and lists', () => {
  it.each([
    ['companies', (h: any) => makeCompany(h, { cvr: '12121212', tags: ['x'] }), { cvr: '12121212' }],
    ['people', (h: any) => makePerson(h, { emails: [{ email: 'exp@people.dk' }], tags: ['x'] }), { tags: 'x' }],
    ['leads', (h: any) => makeLead(h, { email: 'exp@leads.dk', status: 'qualified' }), { status: 'qualified' }],
  ])('exports %s with the read shape', async (resource, make, filters) => {
    const mine = await app.tenant();
    const made = (await make(mine.http)).body.data;
    await make(mine.http);
    const res = await mine.http.post(`/api/v1/export/${resource}`, { filters, limit: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, hasMore: true });
    expect(res.body.data[0]).toEqual((await mine.http.get(`/api/v1/${resource}/${made._id}`)).body.data);
    expect(res.body.nextCursor).toBe(made._id);
  });

  it('exports the records of a list with the same paging; unknown or foreign list 404', async () => {
    const list = (await t.http.post('/api/v1/lists', { name: 'Export list', entityType: 'deal' })).body.data;
    const members = ids([...deals].sort(byId)).filter((_, i) => i % 2 === 0);
    expect((await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: members })).status).toBeLessThan(300);
    const first = await t.http.post(`/api/v1/export/lists/${list._id}`, { limit: 10, fields: 'title' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: members.length, hasMore: true });
    const rest = await t.http.post(`/api/v1/export/lists/${list._id}`, {
      limit: 10,
      cursor: first.body.nextCursor,
      fields: 'title',
    });
    expect([...ids(first.body.data), ...ids(rest.body.data)]).toEqual(members);
    expect((await t.http.post(`/api/v1/export/lists/${list._id}`, { filters: { status: 'won' } })).body.total).toBe(0);
    expect((await t.http.post(`/api/v1/export/lists/${list._id}`, { filters: { city: 'x' } })).status).toBe(400);
    expect((await t.http.post('/api/v1/export/lists/0123456789abcdef01234567', {})).status).toBe(404);
    expect((await t.http.post('/api/v1/export/lists/nope', {})).status).toBe(404);
    const other = await app.tenant();
    expectError(await other.http.post(`/api/v1/export/lists/${list._id}`, {}), 404, /list not found/);
  });
});
