import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { eventsFor } from '../../../test/support/outbox';
import { makeUser, type TestUser } from '../../../test/support/users';
import { expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let member: TestUser;
let other: TestUser;
let admin: TestUser;
withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  member = await makeUser(app, t.workspaceId, 'member', {
    firstName: 'Mia',
    lastName: 'Hansen',
    email: 'mia@acme.test',
  });
  other = await makeUser(app, t.workspaceId, 'member', { firstName: 'Ole', lastName: 'Berg', email: 'ole@acme.test' });
  admin = await makeUser(app, t.workspaceId, 'admin', { firstName: 'Ada', email: 'ada@acme.test' });
});

describe('GET /api/v1/users', () => {
  it("lists the workspace's users by name with paging and search on name and e-mail", async () => {
    const all = await member.http.get('/api/v1/users');
    expect(all.body).toMatchObject({ page: 1, limit: 20, total: 4 });
    expect(all.body.data.map((u: any) => u.firstName)).toEqual(['Ada', 'Mia', 'Ole', 'Owner']);
    expect(all.body.data[1]).toEqual({
      _id: member.userId,
      email: 'mia@acme.test',
      firstName: 'Mia',
      lastName: 'Hansen',
      name: 'Mia Hansen',
      phone: null,
      defaultUserPhone: null,
      role: 'member',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const search = async (q: string) =>
      (await t.http.get(`/api/v1/users?search=${encodeURIComponent(q)}`)).body.data.map((u: any) => u.firstName);
    expect(await search('hansen')).toEqual(['Mia']);
    expect(await search('mia hans')).toEqual(['Mia']);
    expect(await search('OLE@ACME')).toEqual(['Ole']);
    expect(await search('acme.test')).toEqual(['Ada', 'Mia', 'Ole']);
    expect(await search('%')).toEqual([]);
    const page2 = await t.http.get('/api/v1/users?limit=2&page=2');
    expect(page2.body.data.map((u: any) => u.firstName)).toEqual(['Ole', 'Owner']);
    for (const q of ['limit=101', 'page=0', `search=${'x'.repeat(201)}`])
      expect((await t.http.get(`/api/v1/users?${q}`)).status).toBe(400);
  });

  it("never lists or returns another workspace's users", async () => {
    const stranger = await app.tenant();
    expect((await stranger.http.get('/api/v1/users')).body.total).toBe(1);
    expect((await stranger.http.get(`/api/v1/users/${member.userId}`)).status).toBe(404);
    expect((await stranger.http.put(`/api/v1/users/${member.userId}`, { firstName: 'X' })).status).toBe(404);
  });

  it('GET /users/:id returns one user; unknown and malformed ids are 404', async () => {
    expect((await member.http.get(`/api/v1/users/${admin.userId}`)).body.data).toMatchObject({
      _id: admin.userId,
      firstName: 'Ada',
      role: 'admin',
    });
    for (const id of ['0123456789abcdef01234567', 'me'])
      expect((await t.http.get(`/api/v1/users/${id}`)).status).toBe(404);
  });
});

describe('PUT /api/v1/users/:id', () => {
  it('a member updates their own allowed fields; e-mail and role are ignored; user_updated is emitted', async () => {
    const res = await member.http.put(`/api/v1/users/${member.userId}`, {
      firstName: ' Mia ',
      lastName: 'Holm',
      phone: '+45 11 22 33 44',
      defaultUserPhone: '+45 55 66 77 88',
      email: 'evil@x.test',
      role: 'owner',
    });
    expectOk(res, {
      firstName: 'Mia',
      lastName: 'Holm',
      name: 'Mia Holm',
      phone: '+45 11 22 33 44',
      defaultUserPhone: '+45 55 66 77 88',
      email: 'mia@acme.test',
      role: 'member',
    });
    const cleared = await member.http.put(`/api/v1/users/${member.userId}`, { phone: '', lastName: null });
    expect(cleared.body.data).toMatchObject({ phone: null, lastName: null, defaultUserPhone: '+45 55 66 77 88' });
    const events = await eventsFor(app.runtime.deps.orm, member.userId);
    expect(events.map((e) => e.type)).toEqual(['user_updated', 'user_updated']);
    expect(events[0]!.payload.changes.lastName).toEqual({ from: 'Hansen', to: 'Holm' });
  });

  it('a member may not update another user (403); owners and admins may', async () => {
    const denied = await member.http.put(`/api/v1/users/${other.userId}`, { firstName: 'Hacked' });
    expectError(denied, 403, /only update their own/);
    expect((await member.http.get(`/api/v1/users/${other.userId}`)).body.data.firstName).toBe('Ole');
    expect((await admin.http.put(`/api/v1/users/${other.userId}`, { phone: '+45 99' })).body.data.phone).toBe('+45 99');
    expect((await t.http.put(`/api/v1/users/${other.userId}`, { lastName: 'Bergh' })).body.data.lastName).toBe('Bergh');
  });

  it('needs the write scope', async () => {
    const reader = await makeUser(app, t.workspaceId, 'member', { scopes: ['read'] });
    expect((await reader.http.put(`/api/v1/users/${reader.userId}`, { firstName: 'R' })).status).toBe(403);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['empty firstName', { firstName: '' }, /firstName/],
    ['null firstName', { firstName: null }, /firstName/],
    ['firstName over 200', { firstName: 'x'.repeat(201) }, /firstName/],
    ['lastName over 200', { lastName: 'x'.repeat(201) }, /lastName/],
    ['phone over 50', { phone: '1'.repeat(51) }, /phone/],
    ['defaultUserPhone as number', { defaultUserPhone: 4512345678 }, /defaultUserPhone/],
  ];
  it.each(bad)('400 for %s, user unchanged', async (_label, body, message) => {
    const before = (await t.http.get(`/api/v1/users/${admin.userId}`)).body.data;
    const res = await admin.http.put(`/api/v1/users/${admin.userId}`, body);
    expectError(res, 400, message);
    expect((await t.http.get(`/api/v1/users/${admin.userId}`)).body.data).toEqual(before);
  });

  it('accepts values exactly at their limits', async () => {
    const res = await admin.http.put(`/api/v1/users/${admin.userId}`, {
      firstName: 'f'.repeat(200),
      phone: '1'.repeat(50),
    });
    expect(res.status).toBe(200);
  });
});
