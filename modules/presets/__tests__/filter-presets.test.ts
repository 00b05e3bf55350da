import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { eventsFor } from '../../../test/support/outbox';
import { makeUser, type TestUser } from '../../../test/support/users';
import { expectCreated, expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let alice: TestUser; // member, creates the presets
let bob: TestUser; // member, named in userIds
let carol: TestUser; // admin
let dave: TestUser; // member, not named anywhere
const GROUP = '0123456789abcdef0123abcd';

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  alice = await makeUser(app, t.workspaceId, 'member');
  bob = await makeUser(app, t.workspaceId, 'member');
  carol = await makeUser(app, t.workspaceId, 'admin');
  dave = await makeUser(app, t.workspaceId, 'member');
});

const create = (http: Tenant['http'], body: Record<string, unknown> = {}) =>
  http.post('/api/v1/filter-presets', { name: 'Hot deals', area: 'deals', ...body });

describe('filter presets CRUD', () => {
  it('creates with every field, owned by the caller, private by default; updates and deletes with events', async () => {
    const res = await create(alice.http, {
      columnFilters: [{ id: 'status', value: 'open' }],
      filterTree: { op: 'and', children: [] },
      filterMode: 'or',
      sorting: [{ id: 'value', desc: true }],
    });
    const preset = expectCreated(res, {
      name: 'Hot deals',
      area: 'deals',
      filterMode: 'or',
      visibility: 'private',
      userIds: [],
      groupIds: [],
      ownerId: alice.userId,
      columnFilters: [{ id: 'status', value: 'open' }],
      filterTree: { op: 'and', children: [] },
      sorting: [{ id: 'value', desc: true }],
    });
    expect((await alice.http.get(`/api/v1/filter-presets/${preset._id}`)).body.data).toEqual(preset);
    const updated = await alice.http.put(`/api/v1/filter-presets/${preset._id}`, {
      name: 'Warm deals',
      sorting: null,
      area: '',
    });
    expect(updated.body.data).toMatchObject({ name: 'Warm deals', sorting: null, area: null, filterMode: 'or' });
    expect((await alice.http.delete(`/api/v1/filter-presets/${preset._id}`)).body).toEqual({ ok: true });
    expect((await alice.http.get(`/api/v1/filter-presets/${preset._id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, preset._id)).map((e) => e.type)).toEqual([
      'filter_preset_created',
      'filter_preset_updated',
      'filter_preset_deleted',
    ]);
  });

  it('lists by area with paging', async () => {
    const mine = await app.tenant();
    await create(mine.http, { area: 'leads', name: 'L1' });
    await create(mine.http, { area: 'deals', name: 'D1' });
    await create(mine.http, { area: 'deals', name: 'D2' });
    const deals = await mine.http.get('/api/v1/filter-presets?area=deals&limit=1');
    expect(deals.body).toMatchObject({ page: 1, limit: 1, total: 2 });
    expect(deals.body.data[0].name).toBe('D2');
    expect((await mine.http.get('/api/v1/filter-presets')).body.total).toBe(3);
    for (const q of ['limit=101', 'page=0'])
      expect((await mine.http.get(`/api/v1/filter-presets?${q}`)).status).toBe(400);
  });

  const json = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) }); // {"blob":"…"} is 11 bytes of syntax
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing name', { name: undefined }, /name/],
    ['name over 200', { name: 'x'.repeat(201) }, /name/],
    ['area over 100', { area: 'x'.repeat(101) }, /area/],
    ['unknown filterMode', { filterMode: 'xor' }, /filterMode/],
    ['unknown visibility', { visibility: 'public' }, /visibility.*one of/],
    ['columnFilters as a string', { columnFilters: 'status=open' }, /columnFilters/],
    ['filterTree over 32 KB', { filterTree: json(32 * 1024 + 1) }, /filterTree.*32 KB/],
    ['user visibility without userIds', { visibility: 'user' }, /userIds.*at least one/],
    ['group visibility without groupIds', { visibility: 'group' }, /groupIds.*at least one/],
    [
      'unknown user id',
      { visibility: 'user', userIds: ['0123456789abcdef01234567'] },
      /userIds\[0\]: no user with id 0123456789abcdef01234567/,
    ],
    ['malformed user id', { visibility: 'user', userIds: ['bob'] }, /userIds/],
    ['101 group ids', { visibility: 'group', groupIds: Array.from({ length: 101 }, () => GROUP) }, /at most 100/],
  ];
  it.each(bad)('400 for %s', async (_label, override, message) => {
    expectError(await create(alice.http, override), 400, message);
  });

  it("accepts json of exactly 32 KB; another workspace's user is not a valid userId", async () => {
    expect((await create(alice.http, { filterTree: json(32 * 1024) })).status).toBe(201);
    const other = await app.tenant();
    const res = await create(alice.http, { visibility: 'user', userIds: [other.userId] });
    expect(res.status).toBe(400);
  });
});

describe('visibility', () => {
  let ids: Record<'workspace' | 'private' | 'user' | 'group', string>;
  beforeAll(async () => {
    ids = {
      workspace: (await create(alice.http, { name: 'ws', area: 'vis', visibility: 'workspace' })).body.data._id,
      private: (await create(alice.http, { name: 'priv', area: 'vis', visibility: 'private' })).body.data._id,
      user: (await create(alice.http, { name: 'usr', area: 'vis', visibility: 'user', userIds: [bob.userId] })).body
        .data._id,
      group: (await create(alice.http, { name: 'grp', area: 'vis', visibility: 'group', groupIds: [GROUP] })).body.data
        ._id,
    };
  });

  // Who sees what: group presets are owner-only until user groups exist.
  const MATRIX: [string, string[], () => TestUser | Tenant][] = [
    ['the owner (member)', ['workspace', 'private', 'user', 'group'], () => alice],
    ['a named user', ['workspace', 'user'], () => bob],
    ['an admin', ['workspace'], () => carol],
    ['the workspace owner', ['workspace'], () => t],
    ['another member', ['workspace'], () => dave],
  ];
  it.each(MATRIX)('%s sees exactly %j', async (_label, visible, who) => {
    const http = who().http;
    const listed = await http.get('/api/v1/filter-presets?area=vis&limit=100');
    expect(listed.body.data.map((p: any) => p.name).sort()).toEqual(
      visible.map((v) => ({ workspace: 'ws', private: 'priv', user: 'usr', group: 'grp' })[v]).sort(),
    );
    for (const [kind, id] of Object.entries(ids)) {
      expect([kind, (await http.get(`/api/v1/filter-presets/${id}`)).status]).toEqual([
        kind,
        visible.includes(kind) ? 200 : 404,
      ]);
      if (!visible.includes(kind)) {
        expect((await http.put(`/api/v1/filter-presets/${id}`, { name: 'x' })).status).toBe(404);
        expect((await http.delete(`/api/v1/filter-presets/${id}`)).status).toBe(404);
      }
    }
  });

  it('only the owner or an owner/admin may change or delete a visible preset', async () => {
    expect((await bob.http.put(`/api/v1/filter-presets/${ids.user}`, { name: 'mine now' })).status).toBe(403);
    expect((await bob.http.delete(`/api/v1/filter-presets/${ids.user}`)).status).toBe(403);
    expect((await dave.http.put(`/api/v1/filter-presets/${ids.workspace}`, { name: 'x' })).status).toBe(403);
    const byAdmin = await carol.http.put(`/api/v1/filter-presets/${ids.workspace}`, { name: 'ws' });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.data.ownerId).toBe(alice.userId);
    expect((await t.http.put(`/api/v1/filter-presets/${ids.workspace}`, { filterMode: 'or' })).status).toBe(200);
    expect((await alice.http.get(`/api/v1/filter-presets/${ids.user}`)).body.data.name).toBe('usr');
  });

  it('sharing changes take effect: making a private preset workspace-visible shows it to others', async () => {
    const id = (await create(alice.http, { name: 'later', visibility: 'private' })).body.data._id;
    expect((await dave.http.get(`/api/v1/filter-presets/${id}`)).status).toBe(404);
    expect((await alice.http.put(`/api/v1/filter-presets/${id}`, { visibility: 'user' })).status).toBe(400);
    expect(
      (await alice.http.put(`/api/v1/filter-presets/${id}`, { visibility: 'user', userIds: [dave.userId] })).status,
    ).toBe(200);
    expect((await dave.http.get(`/api/v1/filter-presets/${id}`)).status).toBe(200);
    expect((await alice.http.put(`/api/v1/filter-presets/${id}`, { visibility: 'workspace' })).status).toBe(200);
    expect((await bob.http.get(`/api/v1/filter-presets/${id}`)).status).toBe(200);
  });
});
