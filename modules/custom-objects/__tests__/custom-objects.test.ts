import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany } from '../../../test/support/factories';
import { expectCreated } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
const base = '/api/v1/custom-objects';

withTestApp((s) => ({ app, t } = s));

async function object(slug: string, fields: Record<string, unknown>[] = []) {
  const res = await t.http.post(base, { slug, singular: slug, plural: `${slug}s` });
  expect(res.status).toBe(201);
  for (const f of fields) expect((await t.http.post(`${base}/${slug}/fields`, f)).status).toBe(201);
  return res.body.data;
}

describe('definitions', () => {
  it('creates, reads with fields, updates and lists definitions', async () => {
    const res = await t.http.post(base, {
      slug: 'machines',
      singular: 'Machine',
      plural: 'Machines',
      color: '#3366FF',
      icon: 'cog',
    });
    expectCreated(res, {
      slug: 'machines',
      color: '#3366ff',
      useAccentNavIcon: true,
      searchable: true,
      showInSidebar: true,
      fields: [],
      workspace: t.workspaceId,
    });
    expect((await t.http.post(base, { slug: 'plain', singular: 'P', plural: 'Ps' })).body.data.useAccentNavIcon).toBe(
      false,
    );
    expect(
      (await t.http.post(base, { slug: 'quiet', singular: 'Q', plural: 'Qs', color: '#000', useAccentNavIcon: false }))
        .body.data.useAccentNavIcon,
    ).toBe(false);
    expect((await t.http.post(base, { slug: 'machines', singular: 'M', plural: 'Ms' })).status).toBe(409);
    await t.http.post(`${base}/machines/fields`, {
      slug: 'serial',
      label: 'Serial',
      type: 'text',
      isRequired: true,
      isUnique: true,
    });
    const got = await t.http.get(`${base}/machines`);
    expect(got.body.data.fields).toEqual([
      expect.objectContaining({ slug: 'serial', type: 'text', isRequired: true, isUnique: true }),
    ]);
    const patched = await t.http.patch(`${base}/machines`, {
      titleField: 'serial',
      favoriteFieldKeys: ['serial'],
      plural: 'Machine park',
    });
    expect(patched.body.data).toMatchObject({
      titleField: 'serial',
      favoriteFieldKeys: ['serial'],
      plural: 'Machine park',
    });
    expect((await t.http.patch(`${base}/machines`, { titleField: 'nope' })).status).toBe(400);
    expect((await t.http.patch(`${base}/machines`, { slug: 'renamed' })).status).toBe(400);
    const list = await t.http.get(base);
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 3 });
  });

  it('refuses bad definitions and non-admin writes', async () => {
    for (const body of [
      { singular: 'A', plural: 'As' },
      { slug: 'Bad Slug', singular: 'A', plural: 'As' },
      { slug: 'a/b', singular: 'A', plural: 'As' },
      { slug: 'search', singular: 'A', plural: 'As' },
      { slug: 'ok', plural: 'As' },
      { slug: 'ok', singular: 'A', plural: 'As', color: 'blue' },
    ]) {
      expect([JSON.stringify(body), (await t.http.post(base, body)).status]).toEqual([JSON.stringify(body), 400]);
    }
    const member = await app.key(t.workspaceId, ['read', 'write'], 'member');
    expect((await member.post(base, { slug: 'mine', singular: 'A', plural: 'As' })).status).toBe(403);
    expect((await member.get(base)).status).toBe(200);
  });

  it('favoriteFieldKeys: 5 accepted, 6 refused', async () => {
    await object(
      'favs',
      ['a', 'b', 'c', 'd', 'e', 'f'].map((slug) => ({ slug, label: slug, type: 'text' })),
    );
    expect((await t.http.patch(`${base}/favs`, { favoriteFieldKeys: ['a', 'b', 'c', 'd', 'e'] })).status).toBe(200);
    expect((await t.http.patch(`${base}/favs`, { favoriteFieldKeys: ['a', 'b', 'c', 'd', 'e', 'f'] })).status).toBe(
      400,
    );
  });
});

describe('fields and values', () => {
  it('validates every field type on write', async () => {
    const company = (await makeCompany(t.http)).body.data._id;
    await object('things', [
      { slug: 'name', label: 'Name', type: 'text', isRequired: true },
      { slug: 'qty', label: 'Qty', type: 'number' },
      { slug: 'price', label: 'Price', type: 'currency' },
      { slug: 'due', label: 'Due', type: 'date' },
      { slug: 'at', label: 'At', type: 'datetime' },
      {
        slug: 'kind',
        label: 'Kind',
        type: 'select',
        options: [
          { value: 'a', label: 'A' },
          { value: 'b', label: 'B' },
        ],
      },
      {
        slug: 'tags',
        label: 'Tags',
        type: 'multi_select',
        options: [
          { value: 'x', label: 'X' },
          { value: 'y', label: 'Y' },
        ],
      },
      { slug: 'ok', label: 'Ok', type: 'checkbox' },
      { slug: 'site', label: 'Site', type: 'url' },
      { slug: 'mail', label: 'Mail', type: 'email' },
      { slug: 'tel', label: 'Tel', type: 'phone' },
      { slug: 'doc', label: 'Doc', type: 'file' },
      { slug: 'owner', label: 'Owner', type: 'record_reference', referenceType: 'native', nativeEntity: 'company' },
      { slug: 'meta', label: 'Meta', type: 'json' },
    ]);
    const good = {
      name: 'Drill',
      qty: 3,
      price: 99.5,
      due: '2026-12-01',
      at: '2026-12-01T10:00:00+01:00',
      kind: 'a',
      tags: ['x', 'y', 'x'],
      ok: true,
      site: 'https://example.test/x',
      mail: 'Ops@Example.TEST',
      tel: '+45 12 34 56 78',
      doc: 'file-1',
      owner: company,
      meta: { any: [1, 2] },
    };
    const res = await t.http.post(`${base}/things/records`, good);
    expectCreated(res, {
      ...good,
      at: '2026-12-01T09:00:00.000Z',
      tags: ['x', 'y'],
      mail: 'ops@example.test',
      object: 'things',
      recordNumber: 1,
    });
    for (const [slug, value] of [
      ['qty', '3'],
      ['price', 'NaN'],
      ['due', '2026-13-01'],
      ['at', '2026-12-01'],
      ['kind', 'c'],
      ['tags', ['z']],
      ['ok', 'yes'],
      ['site', 'javascript:alert(1)'],
      ['mail', 'nope'],
      ['tel', 'call me'],
      ['owner', '0123456789abcdef01234567'],
      ['owner', 'x'],
      ['meta', { big: 'x'.repeat(70_000) }],
    ] as const) {
      const bad = await t.http.post(`${base}/things/records`, { name: 'X', [slug]: value });
      expect([slug, bad.status]).toEqual([slug, 400]);
      expect(bad.body.details).toEqual([expect.objectContaining({ path: slug })]);
    }
    expect((await t.http.post(`${base}/things/records`, { qty: 1 })).body.details).toEqual([
      { path: 'name', error: 'is required' },
    ]);
    expect((await t.http.post(`${base}/things/records`, { name: 'X', color: 'red' })).status).toBe(400);
    const stranger = await app.tenant();
    const foreignCompany = (await makeCompany(stranger.http)).body.data._id;
    expect((await t.http.post(`${base}/things/records`, { name: 'X', owner: foreignCompany })).status).toBe(400);
  });

  it('refuses bad field definitions, formula/rollup until they are computed, and changes of type', async () => {
    await object('defs');
    for (const body of [
      { slug: 'a', label: 'A' },
      { slug: 'a', label: 'A', type: 'blob' },
      { slug: '_id', label: 'A', type: 'text' },
      { slug: 'recordNumber', label: 'A', type: 'text' },
      { slug: 'k', label: 'K', type: 'select' },
      { slug: 'r', label: 'R', type: 'record_reference' },
      { slug: 'r', label: 'R', type: 'record_reference', referenceType: 'custom', referenceObject: 'nope' },
      { slug: 'f', label: 'F', type: 'formula' },
      { slug: 'u', label: 'U', type: 'json', isUnique: true },
      {
        slug: 'k',
        label: 'K',
        type: 'select',
        options: [
          { value: 'a', label: 'A' },
          { value: 'a', label: 'A2' },
        ],
      },
    ]) {
      expect([JSON.stringify(body), (await t.http.post(`${base}/defs/fields`, body)).status]).toEqual([
        JSON.stringify(body),
        400,
      ]);
    }
    await t.http.post(`${base}/defs/fields`, { slug: 'n', label: 'N', type: 'number' });
    expect((await t.http.post(`${base}/defs/fields`, { slug: 'n', label: 'N', type: 'number' })).status).toBe(409);
    expect((await t.http.patch(`${base}/defs/fields/n`, { type: 'text' })).status).toBe(400);
    expect((await t.http.patch(`${base}/defs/fields/n`, { label: 'Number' })).body.data.label).toBe('Number');
    expect((await t.http.patch(`${base}/defs/fields/nope`, { label: 'X' })).status).toBe(404);
  });
});

describe('records', () => {
  it('numbers records race-free and enforces unique values under concurrency', async () => {
    await object('tickets', [{ slug: 'code', label: 'Code', type: 'text', isUnique: true }]);
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.http.post(`${base}/tickets/records`, { code: `C${i}` })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(created.map((r) => r.body.data.recordNumber).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    const dupes = await Promise.all(
      Array.from({ length: 10 }, () => t.http.post(`${base}/tickets/records`, { code: 'SAME' })),
    );
    expect(dupes.filter((r) => r.status === 201)).toHaveLength(1);
    expect(dupes.filter((r) => r.status === 409)).toHaveLength(9);
    expect((await t.http.post(`${base}/tickets/records`, { code: 'same ' })).status).toBe(409);
    const first = created[0]!.body.data._id;
    expect((await t.http.patch(`${base}/tickets/records/${first}`, { code: 'SAME' })).status).toBe(409);
    expect((await t.http.patch(`${base}/tickets/records/${first}`, { code: 'FREE' })).status).toBe(200);
    expect((await t.http.post(`${base}/tickets/records`, { code: 'C0' })).status).toBe(201);
  });

  it('accepts wrappers, merges PATCH and PUT partially, refuses unknown slugs, deletes', async () => {
    await object('cars', [
      { slug: 'make', label: 'Make', type: 'text' },
      { slug: 'year', label: 'Year', type: 'number' },
    ]);
    const a = await t.http.post(`${base}/cars/records`, { data: { make: 'Volvo' } });
    const b = await t.http.post(`${base}/cars/records`, { customFields: { make: 'Saab', year: 1990 } });
    expect(a.body.data.make).toBe('Volvo');
    expect(b.body.data).toMatchObject({ make: 'Saab', year: 1990 });
    const id = b.body.data._id;
    expect((await t.http.patch(`${base}/cars/records/${id}`, { year: 1991 })).body.data).toMatchObject({
      make: 'Saab',
      year: 1991,
    });
    expect((await t.http.put(`${base}/cars/records/${id}`, { data: { make: 'SAAB' } })).body.data).toMatchObject({
      make: 'SAAB',
      year: 1991,
    });
    expect((await t.http.patch(`${base}/cars/records/${id}`, { year: null })).body.data.year).toBeUndefined();
    expect((await t.http.patch(`${base}/cars/records/${id}`, { colour: 'red' })).status).toBe(400);
    expect((await t.http.get(`${base}/cars/records/${id}`)).body.data).toMatchObject({
      make: 'SAAB',
      recordNumber: 2,
      createdBy: expect.any(String),
    });
    const feed = await t.http.get(`${base}/cars/records/${id}/activity-feed`);
    expect(feed.body.data.map((r: any) => r.type)).toEqual([
      'record_updated',
      'record_updated',
      'record_updated',
      'record_created',
    ]);
    expect(feed.body.data[2].metadata.changes).toEqual({ year: { from: 1990, to: 1991 } });
    expect((await t.http.delete(`${base}/cars/records/${id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`${base}/cars/records/${id}`)).status).toBe(404);
    expect((await t.http.get(`${base}/tickets/records/${a.body.data._id}`)).status).toBe(404);
  });

  it('lists with q, sort by field and dir, cursor pages; bulk patches in one transaction', async () => {
    await object('fruits', [
      { slug: 'name', label: 'Name', type: 'text' },
      { slug: 'weight', label: 'Weight', type: 'number' },
    ]);
    const ids: string[] = [];
    for (const [name, weight] of [
      ['apple', 3],
      ['banana', 1],
      ['cherry', 2],
      ['apricot', 5],
    ] as const)
      ids.push((await t.http.post(`${base}/fruits/records`, { name, weight })).body.data._id);
    const names = async (q: string) =>
      (await t.http.get(`${base}/fruits/records?${q}`)).body.data.map((r: any) => r.name);
    expect(await names('')).toEqual(['apricot', 'cherry', 'banana', 'apple']);
    expect(await names('q=ap')).toEqual(['apricot', 'apple']);
    expect(await names('search=CHER')).toEqual(['cherry']);
    expect(await names('sort=weight&dir=asc')).toEqual(['banana', 'cherry', 'apple', 'apricot']);
    expect(await names('sort=recordNumber&dir=asc')).toEqual(['apple', 'banana', 'cherry', 'apricot']);
    const page1 = await t.http.get(`${base}/fruits/records?limit=2`);
    expect(page1.body).toMatchObject({ total: 4, nextCursor: ids[2] });
    expect(await names(`limit=2&cursor=${page1.body.nextCursor}`)).toEqual(['banana', 'apple']);
    for (const q of ['sort=nope', 'dir=up', 'limit=101', 'cursor=x', `cursor=${ids[0]}&sort=weight`])
      expect((await t.http.get(`${base}/fruits/records?${q}`)).status).toBe(400);
    const bulk = await t.http.post(`${base}/fruits/records/bulk`, {
      ids: [ids[0], ids[1], '0123456789abcdef01234567'],
      patch: { weight: 9 },
    });
    expect(bulk.body.data).toEqual({ matched: 2, updated: 2, notFound: ['0123456789abcdef01234567'] });
    expect((await t.http.get(`${base}/fruits/records/${ids[1]}`)).body.data.weight).toBe(9);
    expect((await t.http.post(`${base}/fruits/records/bulk`, { ids: [ids[0]], patch: { colour: 'red' } })).status).toBe(
      400,
    );
    expect((await t.http.post(`${base}/fruits/records/bulk`, { ids: [], patch: {} })).status).toBe(400);
    expect((await t.http.post(`${base}/fruits/records/bulk`, { ids: Array(501).fill(ids[0]), patch: {} })).status).toBe(
      400,
    );
    expect(
      (await t.http.post(`${base}/fruits/records/bulk`, { ids: Array(500).fill(ids[0]), patch: { weight: 1 } })).status,
    ).toBe(200);
  });

  it('related lists references both ways; deleting a definition removes its records', async () => {
    const company = (await makeCompany(t.http, { name: 'Linked Co' })).body.data._id;
    await object('sites', [
      { slug: 'label', label: 'Label', type: 'text' },
      { slug: 'company', label: 'Company', type: 'record_reference', referenceType: 'native', nativeEntity: 'company' },
    ]);
    await t.http.patch(`${base}/sites`, { titleField: 'label' });
    await object('visits', [
      { slug: 'site', label: 'Site', type: 'record_reference', referenceType: 'custom', referenceObject: 'sites' },
    ]);
    const site = (await t.http.post(`${base}/sites/records`, { label: 'HQ', company })).body.data._id;
    const visit = (await t.http.post(`${base}/visits/records`, { site })).body.data._id;
    const related = await t.http.get(`${base}/sites/records/${site}/related`);
    expect(related.body.data).toEqual([
      { direction: 'outgoing', field: 'company', entityType: 'company', entityId: company, title: 'Linked Co' },
      {
        direction: 'incoming',
        field: 'site',
        entityType: 'custom_object_record',
        object: 'visits',
        entityId: visit,
        title: 'visits #1',
      },
    ]);
    expect((await t.http.get(`${base}/visits/records/${visit}/related`)).body.data[0]).toMatchObject({
      direction: 'outgoing',
      object: 'sites',
      title: 'HQ',
    });
    const del = await t.http.delete(`${base}/visits`);
    expect(del.body.data).toEqual({ deleted: true, deletedRecords: 1 });
    expect((await t.http.get(`${base}/visits`)).status).toBe(404);
    expect((await t.http.get(`${base}/visits/records/${visit}`)).status).toBe(404);
  });
});

describe('tasks and notes on custom object records', () => {
  it('a task and a note may hang off a record and show on its activity feed', async () => {
    await object('rooms', [{ slug: 'name', label: 'Name', type: 'text' }]);
    const room = (await t.http.post(`${base}/rooms/records`, { name: 'Aula' })).body.data._id;
    const task = await t.http.post('/api/v1/tasks', {
      title: 'Clean',
      customObjectRecord: room,
      customObjectSlug: 'rooms',
    });
    expect([task.status, task.body.error]).toEqual([201, undefined]);
    const note = await t.http.post('/api/v1/notes', {
      content: 'Needs chairs',
      customObjectRecord: room,
      customObjectSlug: 'rooms',
    });
    expect([note.status, note.body.error]).toEqual([201, undefined]);
    expect(
      (
        await t.http.post('/api/v1/tasks', {
          title: 'X',
          customObjectRecord: '0123456789abcdef01234567',
          customObjectSlug: 'rooms',
        })
      ).status,
    ).toBe(400);
    const feed = await t.http.get(`${base}/rooms/records/${room}/activity-feed`);
    expect(feed.body.data.map((a: any) => a.type)).toEqual(expect.arrayContaining(['record_created']));
  });
});
