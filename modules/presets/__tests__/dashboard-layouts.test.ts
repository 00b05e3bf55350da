import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { eventsFor } from '../../../test/support/outbox';
import { makeUser, type TestUser } from '../../../test/support/users';
import { expectCreated, expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let alice: TestUser;
let bob: TestUser;
let dave: TestUser;
withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  alice = await makeUser(app, t.workspaceId, 'member');
  bob = await makeUser(app, t.workspaceId, 'member');
  dave = await makeUser(app, t.workspaceId, 'member');
});

const create = (http: Tenant['http'], body: Record<string, unknown> = {}) =>
  http.post('/api/v1/dashboard-layouts', { name: 'Sales board', ...body });
const json = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) });

describe('dashboard layouts', () => {
  it('CRUD with every field and events; private by default', async () => {
    const res = await create(alice.http, {
      layout: { lg: [{ i: 'pipeline', x: 0, y: 0, w: 6, h: 4 }] },
      visibleComponents: ['pipeline', 'tasks'],
      chartWidgets: [{ type: 'bar', metric: 'deals.won' }],
    });
    const layout = expectCreated(res, {
      name: 'Sales board',
      visibility: 'private',
      ownerId: alice.userId,
      visibleComponents: ['pipeline', 'tasks'],
      layout: { lg: [{ i: 'pipeline', x: 0, y: 0, w: 6, h: 4 }] },
      chartWidgets: [{ type: 'bar', metric: 'deals.won' }],
    });
    expect((await alice.http.get(`/api/v1/dashboard-layouts/${layout._id}`)).body.data).toEqual(layout);
    const updated = await alice.http.put(`/api/v1/dashboard-layouts/${layout._id}`, {
      visibleComponents: [],
      chartWidgets: null,
    });
    expect(updated.body.data).toMatchObject({ name: 'Sales board', visibleComponents: [], chartWidgets: null });
    expect((await alice.http.get('/api/v1/dashboard-layouts')).body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect((await alice.http.delete(`/api/v1/dashboard-layouts/${layout._id}`)).body).toEqual({ ok: true });
    expect((await alice.http.get(`/api/v1/dashboard-layouts/${layout._id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, layout._id)).map((e) => e.type)).toEqual([
      'dashboard_layout_created',
      'dashboard_layout_updated',
      'dashboard_layout_deleted',
    ]);
  });

  it('follows the filter-preset visibility rules in lists and by id', async () => {
    const ws = (await create(alice.http, { name: 'ws', visibility: 'workspace' })).body.data._id;
    const priv = (await create(alice.http, { name: 'priv' })).body.data._id;
    const usr = (await create(alice.http, { name: 'usr', visibility: 'user', userIds: [bob.userId] })).body.data._id;
    const grp = (await create(alice.http, { name: 'grp', visibility: 'group', groupIds: ['0123456789abcdef0123abcd'] }))
      .body.data._id;
    const names = async (http: Tenant['http']) =>
      (await http.get('/api/v1/dashboard-layouts?limit=100')).body.data.map((l: any) => l.name).sort();
    expect(await names(alice.http)).toEqual(['grp', 'priv', 'usr', 'ws']);
    expect(await names(bob.http)).toEqual(['usr', 'ws']);
    expect(await names(dave.http)).toEqual(['ws']);
    expect(await names(t.http)).toEqual(['ws']);
    expect((await dave.http.get(`/api/v1/dashboard-layouts/${priv}`)).status).toBe(404);
    expect((await dave.http.get(`/api/v1/dashboard-layouts/${grp}`)).status).toBe(404);
    expect((await bob.http.get(`/api/v1/dashboard-layouts/${usr}`)).status).toBe(200);
    expect((await bob.http.put(`/api/v1/dashboard-layouts/${usr}`, { name: 'x' })).status).toBe(403);
    expect((await dave.http.delete(`/api/v1/dashboard-layouts/${ws}`)).status).toBe(403);
    expect((await t.http.put(`/api/v1/dashboard-layouts/${ws}`, { name: 'ws' })).status).toBe(200);
    expect((await t.http.delete(`/api/v1/dashboard-layouts/${priv}`)).status).toBe(404);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing name', { name: undefined }, /name/],
    ['name over 200', { name: 'x'.repeat(201) }, /name/],
    ['layout as a number', { layout: 5 }, /layout/],
    ['layout over 64 KB', { layout: json(64 * 1024 + 1) }, /layout.*64 KB/],
    ['chartWidgets over 64 KB', { chartWidgets: json(64 * 1024 + 1) }, /chartWidgets.*64 KB/],
    ['visibleComponents not strings', { visibleComponents: [1] }, /visibleComponents/],
    ['101 visibleComponents', { visibleComponents: Array.from({ length: 101 }, (_, i) => `c${i}`) }, /at most 100/],
    ['unknown visibility', { visibility: 'everyone' }, /visibility/],
    [
      'user visibility with an unknown user',
      { visibility: 'user', userIds: ['0123456789abcdef01234567'] },
      /no user with id/,
    ],
  ];
  it.each(bad)('400 for %s', async (_label, override, message) => {
    expectError(await create(alice.http, override), 400, message);
  });

  it('accepts 64 KB of layout json and 100 components', async () => {
    expect(
      (
        await create(alice.http, {
          layout: json(64 * 1024),
          visibleComponents: Array.from({ length: 100 }, (_, i) => `c${i}`),
        })
      ).status,
    ).toBe(201);
  });
});
