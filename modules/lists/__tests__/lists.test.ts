import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makePerson, seedCompanies } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const MISSING = '0123456789abcdef01234567';
const makeList = (http: Tenant['http'], body: Record<string, unknown> = {}) =>
  http.post('/api/v1/lists', { name: 'Conference 2026', entityType: 'company', ...body });
const removeItems = (http: Tenant['http'], listId: string, body: unknown) =>
  http.request('DELETE', `/api/v1/lists/${listId}/items`, body);

describe('lists CRUD', () => {
  it('creates, gets, lists with itemCount, updates, deletes; emits list events', async () => {
    const mine = await app.tenant();
    const res = await makeList(mine.http, { name: ' Fair leads ', entityType: 'lead', description: 'From the fair' });
    const list = expectCreated(res, {
      name: 'Fair leads',
      entityType: 'lead',
      description: 'From the fair',
      itemCount: 0,
      ownerId: mine.userId,
    });
    expect((await mine.http.get(`/api/v1/lists/${list._id}`)).body.data).toEqual(list);
    await makeList(mine.http, { name: 'People list', entityType: 'person' });
    const all = await mine.http.get('/api/v1/lists');
    expect(all.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(all.body.data.map((l: any) => l.name)).toEqual(['People list', 'Fair leads']);
    expect((await mine.http.get('/api/v1/lists?entityType=lead')).body.data.map((l: any) => l._id)).toEqual([list._id]);
    expect((await mine.http.get('/api/v1/lists?q=FAIR')).body.total).toBe(1);

    const updated = await mine.http.put(`/api/v1/lists/${list._id}`, {
      name: 'Renamed',
      description: null,
      entityType: 'lead',
    });
    expect(updated.body.data).toMatchObject({ name: 'Renamed', description: null, entityType: 'lead' });
    const changeType = await mine.http.put(`/api/v1/lists/${list._id}`, { entityType: 'deal' });
    expectError(changeType, 400, /entityType.*cannot be changed/);

    expect((await mine.http.delete(`/api/v1/lists/${list._id}`)).body).toEqual({ ok: true });
    expect((await mine.http.get(`/api/v1/lists/${list._id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, list._id)).map((e) => e.type)).toEqual([
      'list_created',
      'list_updated',
      'list_deleted',
    ]);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing name', { name: undefined }, /name/],
    ['blank name', { name: '  ' }, /name/],
    ['name over 200', { name: 'x'.repeat(201) }, /name.*200/],
    ['missing entityType', { entityType: undefined }, /entityType/],
    ['unknown entityType', { entityType: 'project' }, /entityType.*one of/],
    ['description over 2000', { description: 'x'.repeat(2001) }, /description/],
  ];
  it.each(bad)('400 for %s', async (_label, override, message) => {
    expectError(await makeList(t.http, override), 400, message);
  });

  it('accepts a 200-character name; 404 for unknown and malformed ids; bad paging 400', async () => {
    expect((await makeList(t.http, { name: 'n'.repeat(200) })).status).toBe(201);
    for (const id of [MISSING, 'nope']) {
      expect((await t.http.get(`/api/v1/lists/${id}`)).status).toBe(404);
      expect((await t.http.get(`/api/v1/lists/${id}/items`)).status).toBe(404);
      expect((await t.http.post(`/api/v1/lists/${id}/items`, { entityIds: [MISSING] })).status).toBe(404);
    }
    for (const q of ['limit=101', 'page=0', 'entityType=task'])
      expect((await t.http.get(`/api/v1/lists?${q}`)).status).toBe(400);
  });
});

describe('list items', () => {
  it('adds records (re-adding is a no-op), lists them with summaries newest first, removes them; emits item events', async () => {
    const list = (await makeList(t.http)).body.data;
    const a = (await makeCompany(t.http, { name: 'Alpha', city: 'Aarhus' })).body.data;
    const b = (await makeCompany(t.http, { name: 'Beta' })).body.data;
    const first = await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: [a._id] });
    expect(first.body.data).toEqual({ added: 1, alreadyPresent: 0 });
    const second = await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: [a._id, b._id, b._id] });
    expect(second.body.data).toEqual({ added: 1, alreadyPresent: 1 });
    const items = await t.http.get(`/api/v1/lists/${list._id}/items`);
    expect(items.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(items.body.data[0]).toMatchObject({
      entityId: b._id,
      entityType: 'company',
      addedBy: t.userId,
      entity: { _id: b._id, name: 'Beta' },
    });
    expect(items.body.data[1].entity).toMatchObject({ _id: a._id, name: 'Alpha', city: 'Aarhus' });
    expect(items.body.data[1].entity.customFields).toBeUndefined();
    expect((await t.http.get(`/api/v1/lists/${list._id}/items?limit=1&page=2`)).body.data[0].entityId).toBe(a._id);
    expect((await t.http.get(`/api/v1/lists/${list._id}`)).body.data.itemCount).toBe(2);

    const events = await eventsFor(app.runtime.deps.orm, a._id);
    expect(events.filter((e) => e.type.startsWith('list_item')).map((e) => [e.type, e.payload])).toEqual([
      ['list_item_added', { listId: list._id, listName: list.name, entityType: 'company', entityId: a._id }],
    ]);

    const viaQuery = await t.http.delete(`/api/v1/lists/${list._id}/items?entityId=${a._id}`);
    expect(viaQuery.body.data).toEqual({ removed: 1, notPresent: 0 });
    const viaBody = await removeItems(t.http, list._id, { entityIds: [a._id, b._id] });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.data).toEqual({ removed: 1, notPresent: 1 });
    expect((await t.http.get(`/api/v1/lists/${list._id}/items`)).body.total).toBe(0);
    expect((await eventsFor(app.runtime.deps.orm, b._id)).map((e) => e.type).slice(-2)).toEqual([
      'list_item_added',
      'list_item_removed',
    ]);
  });

  it('refuses records of another type, another workspace or unknown ids with 400, adding nothing', async () => {
    const list = (await makeList(t.http)).body.data;
    const company = (await makeCompany(t.http)).body.data;
    const person = (await makePerson(t.http)).body.data;
    const foreign = (await makeCompany((await app.tenant()).http)).body.data;
    const res = await t.http.post(`/api/v1/lists/${list._id}/items`, {
      entityIds: [company._id, person._id, foreign._id, MISSING],
    });
    expectError(res, 400, /no company with id/);
    expect(res.body.details.missing).toEqual([person._id, foreign._id, MISSING]);
    expect((await t.http.get(`/api/v1/lists/${list._id}/items`)).body.total).toBe(0);
  });

  it('works for person, lead and deal lists', async () => {
    const makers: [string, () => Promise<any>][] = [
      ['person', () => makePerson(t.http, { firstName: 'Pia' })],
      ['lead', () => t.http.post('/api/v1/leads', { title: 'Lead X' })],
      ['deal', () => t.http.post('/api/v1/deals', { title: 'Deal X' })],
    ];
    for (const [entityType, make] of makers) {
      const list = (await makeList(t.http, { entityType })).body.data;
      const record = (await make()).body.data;
      expect((await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: [record._id] })).body.data).toEqual({
        added: 1,
        alreadyPresent: 0,
      });
      const items = (await t.http.get(`/api/v1/lists/${list._id}/items`)).body.data;
      expect(items[0].entity._id).toBe(record._id);
      expect(items[0].entityType).toBe(entityType);
    }
  });

  it('skips items whose record was deleted; deleting the list removes its items', async () => {
    const list = (await makeList(t.http)).body.data;
    const keep = (await makeCompany(t.http)).body.data;
    const gone = (await makeCompany(t.http)).body.data;
    await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: [keep._id, gone._id] });
    await t.http.delete(`/api/v1/companies/${gone._id}`);
    const items = await t.http.get(`/api/v1/lists/${list._id}/items`);
    expect(items.body.total).toBe(1);
    expect(items.body.data.map((i: any) => i.entityId)).toEqual([keep._id]);
    await t.http.delete(`/api/v1/lists/${list._id}`);
    const rows = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from list_item where list_id = ?', [list._id]);
    expect(rows[0].n).toBe(0);
  });

  it('adds exactly 500 ids in one call; 501 is refused', async () => {
    const list = (await makeList(t.http)).body.data;
    const ids = await seedCompanies(app, t.workspaceId, 500, 'Seed');
    const res = await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: ids });
    expect(res.body.data).toEqual({ added: 500, alreadyPresent: 0 });
    expectError(
      await t.http.post(`/api/v1/lists/${list._id}/items`, { entityIds: [...ids, MISSING] }),
      400,
      /at most 500/,
    );
  });

  const bad: [string, unknown][] = [
    ['no body', undefined],
    ['empty entityIds', { entityIds: [] }],
    ['malformed id', { entityIds: ['nope'] }],
    ['entityIds not an array', { entityIds: MISSING }],
  ];
  it.each(bad)('400 for %s on add and remove', async (_label, body) => {
    const list = (await makeList(t.http)).body.data;
    const add = await t.http.post(`/api/v1/lists/${list._id}/items`, body);
    expectError(add, 400, /entityIds/);
    expectError(await removeItems(t.http, list._id, body), 400, /entityIds/);
  });

  it('remove: malformed ?entityId= is 400; a malformed JSON body is 400', async () => {
    const list = (await makeList(t.http)).body.data;
    expect((await t.http.delete(`/api/v1/lists/${list._id}/items?entityId=nope`)).status).toBe(400);
    const raw = await t.http.request('DELETE', `/api/v1/lists/${list._id}/items`, undefined, {
      raw: '{"entityIds": [',
      headers: { 'content-type': 'application/json' },
    });
    expectError(raw, 400, /malformed JSON/);
  });
});
