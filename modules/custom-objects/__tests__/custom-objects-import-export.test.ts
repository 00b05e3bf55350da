import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
const base = '/api/v1/custom-objects';

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  expect((await t.http.post(base, { slug: 'parts', singular: 'Part', plural: 'Parts' })).status).toBe(201);
  for (const f of [
    { slug: 'name', label: 'Name', type: 'text', isRequired: true },
    { slug: 'serial', label: 'Serial', type: 'text', isUnique: true },
    { slug: 'qty', label: 'Qty', type: 'number' },
  ]) {
    expect((await t.http.post(`${base}/parts/fields`, f)).status).toBe(201);
  }
});

const records = async (tenant: Tenant, slug: string) =>
  (await tenant.http.get(`${base}/${slug}/records?limit=100`)).body;

describe('POST /api/v1/import/custom-objects/:slug', () => {
  it('saves valid rows, reports invalid ones by index with their paths, each row atomic', async () => {
    const res = await t.http.post('/api/v1/import/custom-objects/parts', {
      rows: [
        { name: 'Bolt', serial: 'S-1', qty: 3 },
        { qty: 'many' },
        { data: { name: 'Nut', serial: 's-1' } },
        'not a row',
        { name: 'Washer', colour: 'red' },
        { customFields: { name: 'Screw', serial: 'S-2' } },
      ],
    });
    expectOk(res, {
      entityType: 'custom_object',
      dryRun: false,
      dedupe: 'none',
      total: 6,
      created: 2,
      updated: 0,
      skipped: 0,
      failed: 4,
    });
    expect(res.body.data.importId).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.data.errors).toEqual([
      {
        row: 1,
        errors: expect.arrayContaining([
          { path: 'qty', error: 'must be a number' },
          { path: 'name', error: 'is required' },
        ]),
      },
      { row: 2, errors: [{ path: 'serial', error: expect.stringContaining('already used') }] },
      { row: 3, errors: [{ path: '', error: 'row must be an object' }] },
      { row: 4, errors: [{ path: 'colour', error: 'unknown field' }] },
    ]);
    const list = await records(t, 'parts');
    expect(list.total).toBe(2);
    // The failed row left nothing behind: no record, no record number, its unique value is free.
    expect(list.data.map((r: { name: string; recordNumber: number }) => [r.name, r.recordNumber]).sort()).toEqual([
      ['Bolt', 1],
      ['Screw', 2],
    ]);
    expect((await t.http.post(`${base}/parts/records`, { name: 'Later' })).body.data.recordNumber).toBe(3);
    const history = await t.http.get('/api/v1/import/history');
    expect(history.body.data[0]).toMatchObject({
      _id: res.body.data.importId,
      entityType: 'custom_object',
      created: 2,
      failed: 4,
    });
  });

  it('validate: true runs the same checks and saves nothing', async () => {
    const before = (await records(t, 'parts')).total;
    const res = await t.http.post('/api/v1/import/custom-objects/parts', {
      validate: true,
      rows: [{ name: 'Gear', serial: 'S-9' }, { name: 'Dup', serial: 'S-1' }, { serial: 'S-10' }],
    });
    expectOk(res, { importId: null, dryRun: true, total: 3, created: 1, failed: 2 });
    expect(res.body.data.errors.map((e: { row: number }) => e.row)).toEqual([1, 2]);
    expect((await records(t, 'parts')).total).toBe(before);
  });

  it('refuses bad bodies, unknown objects and callers without import scope or admin role', async () => {
    for (const body of [
      {},
      { rows: [] },
      { rows: 'x' },
      { rows: Array.from({ length: 5001 }, () => ({ name: 'x' })) },
      { rows: [{ name: 'x' }], validate: 'yes' },
    ]) {
      expect((await t.http.post('/api/v1/import/custom-objects/parts', body)).status).toBe(400);
    }
    expect((await t.http.post('/api/v1/import/custom-objects/nothing-here', { rows: [{ name: 'x' }] })).status).toBe(
      404,
    );
    const writer = await app.key(t.workspaceId, ['read', 'write'], 'owner');
    expect((await writer.post('/api/v1/import/custom-objects/parts', { rows: [{ name: 'x' }] })).status).toBe(403);
    const member = await app.key(t.workspaceId, ['import'], 'member');
    expect((await member.post('/api/v1/import/custom-objects/parts', { rows: [{ name: 'x' }] })).status).toBe(403);
    const admin = await app.key(t.workspaceId, ['import'], 'admin');
    expect(
      (await admin.post('/api/v1/import/custom-objects/parts', { rows: [{ name: 'Admin row' }] })).body.data.created,
    ).toBe(1);
  });
});

describe('POST /api/v1/export/custom-objects/:slug', () => {
  let e: Tenant;
  beforeAll(async () => {
    e = await app.tenant();
    expect((await e.http.post(base, { slug: 'items', singular: 'Item', plural: 'Items' })).status).toBe(201);
    expect((await e.http.post(`${base}/items/fields`, { slug: 'label', label: 'Label', type: 'text' })).status).toBe(
      201,
    );
    const res = await e.http.post('/api/v1/import/custom-objects/items', {
      rows: Array.from({ length: 25 }, (_, i) => ({ label: `Item ${i + 1}` })),
    });
    expect(res.body.data.created).toBe(25);
  });

  it('pages by cursor and by page in creation order, with flattened rows', async () => {
    const first = await e.http.post('/api/v1/export/custom-objects/items', { limit: 10 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 25, limit: 10, hasMore: true, page: 1 });
    expect(first.body.data[0]).toMatchObject({
      object: 'items',
      recordNumber: 1,
      label: 'Item 1',
      workspace: e.workspaceId,
    });
    expect(first.body.nextCursor).toBe(first.body.data[9]._id);
    const seen: string[] = first.body.data.map((r: { _id: string }) => r._id);
    let cursor = first.body.nextCursor;
    while (cursor) {
      const next = await e.http.post('/api/v1/export/custom-objects/items', { limit: 10, cursor });
      seen.push(...next.body.data.map((r: { _id: string }) => r._id));
      cursor = next.body.nextCursor;
      if (!next.body.hasMore) expect(next.body.nextCursor).toBeNull();
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect([...seen].sort()).toEqual(seen);
    const third = await e.http.post('/api/v1/export/custom-objects/items?limit=10&page=3', {});
    expect(third.body).toMatchObject({ total: 25, hasMore: false, nextCursor: null, page: 3 });
    expect(third.body.data.map((r: { label: string }) => r.label)).toEqual([
      'Item 21',
      'Item 22',
      'Item 23',
      'Item 24',
      'Item 25',
    ]);
  });

  it('filters createdAt with from/to (and their aliases)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { from: today, to: today })).body.total).toBe(25);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { from: tomorrow })).body.total).toBe(0);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { to: yesterday })).body.total).toBe(0);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { dateTo: yesterday })).body.total).toBe(0);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { from: 'soon' })).status).toBe(400);
  });

  it('enforces limit at 10,000 / 10,001 and the access rules', async () => {
    const max = await e.http.post('/api/v1/export/custom-objects/items', { limit: 10_000 });
    expect(max.status).toBe(200);
    expect(max.body).toMatchObject({ total: 25, limit: 10_000, hasMore: false });
    expect(max.body.data).toHaveLength(25);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { limit: 10_001 })).status).toBe(400);
    expect((await e.http.post('/api/v1/export/custom-objects/items?limit=10001', {})).status).toBe(400);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { limit: 0 })).status).toBe(400);
    expect((await e.http.post('/api/v1/export/custom-objects/items', { cursor: 'nope' })).status).toBe(400);
    expect((await e.http.post('/api/v1/export/custom-objects/nothing-here', {})).status).toBe(404);
    const reader = await app.key(e.workspaceId, ['read', 'write'], 'owner');
    expect((await reader.post('/api/v1/export/custom-objects/items', {})).status).toBe(403);
    const member = await app.key(e.workspaceId, ['export'], 'member');
    expect((await member.post('/api/v1/export/custom-objects/items', {})).status).toBe(403);
    const admin = await app.key(e.workspaceId, ['export'], 'admin');
    expect((await admin.post('/api/v1/export/custom-objects/items', {})).body.total).toBe(25);
    // Another workspace's object of the same slug is not visible.
    expect((await t.http.post('/api/v1/export/custom-objects/items', {})).status).toBe(404);
  });
});
