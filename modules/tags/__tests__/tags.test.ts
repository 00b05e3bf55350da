import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { createVia, makeCompany, makePerson, seedCompanies } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const bulk = (http: Tenant['http'], body: Record<string, unknown>) => http.post('/api/v1/tags/bulk', body);
const MISSING = '0123456789abcdef01234567';

describe('GET /api/v1/tags', () => {
  it('lists unique tags with counts, sorted by tag, per type or across all four types', async () => {
    const mine = await app.tenant();
    await makeCompany(mine.http, { tags: ['vip', 'Beta'] });
    await makeCompany(mine.http, { tags: ['vip'] });
    await makePerson(mine.http, { tags: ['alpha', 'vip'] });
    await mine.http.post('/api/v1/leads', { title: 'L', tags: ['warm'] });
    await mine.http.post('/api/v1/deals', { title: 'D', tags: ['hot', 'vip'] });
    const companies = await mine.http.get('/api/v1/tags?entityType=company');
    expect(companies.status).toBe(200);
    expect(companies.body.data).toEqual([
      { tag: 'Beta', count: 1 },
      { tag: 'vip', count: 2 },
    ]);
    expect((await mine.http.get('/api/v1/tags?entityType=lead')).body.data).toEqual([{ tag: 'warm', count: 1 }]);
    const all = await mine.http.get('/api/v1/tags');
    expect(all.body).toEqual({
      data: [
        { tag: 'alpha', count: 1 },
        { tag: 'Beta', count: 1 },
        { tag: 'hot', count: 1 },
        { tag: 'vip', count: 4 },
        { tag: 'warm', count: 1 },
      ],
      page: 1,
      limit: 20,
      total: 5,
    });
    // Paged like every list: total counts unique tags, not the tags on the page.
    expect((await mine.http.get('/api/v1/tags?page=2&limit=2')).body).toEqual({
      data: [
        { tag: 'hot', count: 1 },
        { tag: 'vip', count: 4 },
      ],
      page: 2,
      limit: 2,
      total: 5,
    });
    expect((await mine.http.get('/api/v1/tags?page=4&limit=2')).body).toEqual({
      data: [],
      page: 4,
      limit: 2,
      total: 5,
    });
    expect((await mine.http.get('/api/v1/tags?limit=500')).body.limit).toBe(500);
    expect((await (await app.tenant()).http.get('/api/v1/tags')).body).toEqual({
      data: [],
      page: 1,
      limit: 20,
      total: 0,
    });
  });

  it.each(['limit=501', 'limit=0', 'page=0', 'page=x'])('400 for %s', async (q) => {
    expectError(await t.http.get(`/api/v1/tags?${q}`), 400, /limit|page/);
  });

  it.each(['invoice', 'Company', ''])('400 for entityType=%s', async (entityType) => {
    expectError(await t.http.get(`/api/v1/tags?entityType=${entityType}`), 400, /entityType/);
  });
});

describe('POST /api/v1/tags/bulk', () => {
  it('adds and removes on every record, emits tag events only for tags that changed, one feed row each', async () => {
    const a = (await makeCompany(t.http, { tags: ['old', 'keep'] })).body.data;
    const b = (await makeCompany(t.http, { tags: ['keep', 'new'] })).body.data;
    const res = await bulk(t.http, {
      entityType: 'company',
      entityIds: [a._id, b._id, a._id],
      add: ['new', ' new '],
      remove: ['old'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ updated: 1, unchanged: 1 });
    expect((await t.http.get(`/api/v1/companies/${a._id}`)).body.data.tags).toEqual(['keep', 'new']);
    expect((await t.http.get(`/api/v1/companies/${b._id}`)).body.data.tags).toEqual(['keep', 'new']);
    const events = (await eventsFor(app.runtime.deps.orm, a._id)).slice(3);
    expect(events.map((e) => [e.type, e.payload.tag])).toEqual([
      ['company_updated', undefined],
      ['tag_added', 'new'],
      ['tag_removed', 'old'],
    ]);
    expect(events[1]!.payload).toEqual({ entityType: 'company', entityId: a._id, tag: 'new' });
    expect(events[0]!.payload.changes).toEqual({ tags: { from: ['old', 'keep'], to: ['keep', 'new'] } });
    expect((await eventsFor(app.runtime.deps.orm, b._id)).map((e) => e.type)).toEqual([
      'company_created',
      'tag_added',
      'tag_added',
    ]);
    const feed = await t.http.get(`/api/v1/companies/${a._id}/activity-feed`);
    expect(feed.body.data[0]).toMatchObject({
      type: 'record_updated',
      metadata: { changes: { tags: { from: ['old', 'keep'], to: ['keep', 'new'] } } },
    });
  });

  it.each([
    ['person', (http: Tenant['http']) => makePerson(http, { tags: ['x'] }), '/api/v1/people'],
    ['lead', (http: Tenant['http']) => http.post('/api/v1/leads', { title: 'L', tags: ['x'] }), '/api/v1/leads'],
    ['deal', (http: Tenant['http']) => http.post('/api/v1/deals', { title: 'D', tags: ['x'] }), '/api/v1/deals'],
  ])('works for %s records', async (entityType, make, path) => {
    const id = (await make(t.http)).body.data._id;
    const res = await bulk(t.http, { entityType, entityIds: [id], add: ['y'], remove: ['x'] });
    expect(res.body.data).toEqual({ updated: 1, unchanged: 0 });
    expect((await t.http.get(`${path}/${id}`)).body.data.tags).toEqual(['y']);
    const types = (await eventsFor(app.runtime.deps.orm, id)).map((e) => e.type);
    expect(types.slice(-3)).toEqual([`${entityType}_updated`, 'tag_added', 'tag_removed']);
  });

  it('rescores leads whose tags changed (scoring rules can use tags)', async () => {
    const mine = await app.tenant();
    const rule = { name: 'VIP', field: 'tags', condition: 'contains', value: 'vip', points: 30 };
    await createVia(mine.http, '/api/v1/lead-scoring/rules', rule);
    const lead = (await mine.http.post('/api/v1/leads', { title: 'L' })).body.data;
    expect(lead.score).toBe(0);
    await bulk(mine.http, { entityType: 'lead', entityIds: [lead._id], add: ['vip'] });
    expect((await mine.http.get(`/api/v1/leads/${lead._id}`)).body.data).toMatchObject({ tags: ['vip'], score: 30 });
    await bulk(mine.http, { entityType: 'lead', entityIds: [lead._id], remove: ['vip'] });
    expect((await mine.http.get(`/api/v1/leads/${lead._id}`)).body.data.score).toBe(0);
  });

  it('refuses unknown, other-workspace and other-type ids with 400 listing them, and changes nothing', async () => {
    const mine = (await makeCompany(t.http, { tags: ['x'] })).body.data;
    const person = (await makePerson(t.http)).body.data;
    const other = await app.tenant();
    const foreign = (await makeCompany(other.http)).body.data;
    const res = await bulk(t.http, {
      entityType: 'company',
      entityIds: [mine._id, MISSING, foreign._id, person._id],
      add: ['y'],
    });
    expectError(res, 400, MISSING);
    expect(res.body.error).toContain(foreign._id);
    expect(res.body.error).toContain(person._id);
    expect(res.body.error).not.toContain(mine._id);
    expect(res.body.details.missing).toEqual([MISSING, foreign._id, person._id]);
    expect((await t.http.get(`/api/v1/companies/${mine._id}`)).body.data.tags).toEqual(['x']);
    expect((await other.http.get(`/api/v1/companies/${foreign._id}`)).body.data.tags).toEqual([]);
  });

  it('updates exactly 500 records in one call', async () => {
    const mine = await app.tenant();
    const ids = await seedCompanies(app, mine.workspaceId, 500, 'Bulk');
    const res = await bulk(mine.http, { entityType: 'company', entityIds: ids, add: ['bulk'] });
    expect(res.body.data).toEqual({ updated: 500, unchanged: 0 });
    expect((await mine.http.get('/api/v1/tags?entityType=company')).body.data).toEqual([{ tag: 'bulk', count: 500 }]);
  });

  it('refuses a record that would exceed 100 tags, changing nothing', async () => {
    const full = (await makeCompany(t.http, { tags: Array.from({ length: 99 }, (_, i) => `t${i}`) })).body.data;
    expect((await bulk(t.http, { entityType: 'company', entityIds: [full._id], add: ['t100'] })).status).toBe(200);
    const res = await bulk(t.http, { entityType: 'company', entityIds: [full._id], add: ['t101'] });
    expectError(res, 400, /at most 100 tags/);
    expect((await t.http.get(`/api/v1/companies/${full._id}`)).body.data.tags).toHaveLength(100);
  });

  const id = '0123456789abcdef01234568';
  const bad: [string, unknown, RegExp][] = [
    ['missing entityType', { entityIds: [id], add: ['a'] }, /entityType/],
    ['unknown entityType', { entityType: 'project', entityIds: [id], add: ['a'] }, /entityType/],
    ['no ids', { entityType: 'company', entityIds: [], add: ['a'] }, /at least one id/],
    ['501 ids', { entityType: 'company', entityIds: Array.from({ length: 501 }, () => id), add: ['a'] }, /at most 500/],
    ['malformed id', { entityType: 'company', entityIds: ['nope'], add: ['a'] }, /entityIds/],
    ['neither add nor remove', { entityType: 'company', entityIds: [id] }, /add or remove/],
    ['both empty', { entityType: 'company', entityIds: [id], add: [], remove: [] }, /add or remove/],
    [
      'tag in add and remove',
      { entityType: 'company', entityIds: [id], add: ['a'], remove: ['a'] },
      /both add and remove/,
    ],
    ['empty tag', { entityType: 'company', entityIds: [id], add: [' '] }, /tags must not be empty/],
    ['tag over 100 chars', { entityType: 'company', entityIds: [id], add: ['x'.repeat(101)] }, /100 characters/],
    ['add not an array', { entityType: 'company', entityIds: [id], add: 'a' }, /add/],
  ];
  it.each(bad)('400 for %s', async (_label, body, message) => {
    expectError(await t.http.post('/api/v1/tags/bulk', body), 400, message);
  });

  it('needs the write scope', async () => {
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await bulk(reader, { entityType: 'company', entityIds: [id], add: ['a'] })).status).toBe(403);
  });
});
