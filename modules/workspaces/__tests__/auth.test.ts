import { z } from 'zod';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { ok, route } from '../../../platform/http/registry';
import { revokeApiKey } from '../api-keys.service';
import { setWorkspaceStatus } from '../workspaces.service';
import { HttpClient, startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { withTenantOfApp, withTestApp } from '../../../test/support/suites';
import { expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

describe('authentication', () => {
  it('accepts the key as Bearer header and as api_key query parameter', async () => {
    expect((await t.http.get('/api/v1/whoami')).status).toBe(200);
    const viaQuery = await app.anonymous.get(`/api/v1/whoami?api_key=${encodeURIComponent(t.apiKey)}`);
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.data.workspace._id).toBe(t.workspaceId);
  });

  it('whoami shows workspace name, user name, key prefix and scopes, never the key', async () => {
    const res = await t.http.get('/api/v1/whoami');
    expect(res.body.data).toMatchObject({
      workspace: { _id: t.workspaceId },
      user: { _id: t.userId, role: 'owner' },
      key: { role: 'owner' },
    });
    expect(res.body.data.key.prefix).toBe(t.apiKey.slice(0, 11));
    expect(res.body.data.scopes.sort()).toEqual([
      'admin',
      'contribute',
      'export',
      'import',
      'inbound',
      'read',
      'sms',
      'webhooks',
      'write',
    ]);
    expect(JSON.stringify(res.body)).not.toContain(t.apiKey);
  });

  const unauthenticated: [string, Record<string, string>][] = [
    ['no credential', {}],
    ['unknown key', { authorization: 'Bearer sb_doesnotexist0000000000000000000000000000' }],
    ['key without sb_ prefix', { authorization: 'Bearer abc' }],
    ['malformed header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['empty bearer', { authorization: 'Bearer ' }],
  ];
  it.each(unauthenticated)('401 { error } for %s', async (_label, headers) => {
    const res = await app.anonymous.get('/api/v1/companies', { headers });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual(expect.any(String));
  });

  it('403 for a revoked key; other keys keep working', async () => {
    const mine = await app.tenant();
    const extra = await app.key(mine.workspaceId, ['read']);
    expect((await extra.get('/api/v1/companies')).status).toBe(200);
    await revokeApiKey(app.runtime.deps.orm.em.fork(), extra.keyId);
    // The revocation reaches this process's key cache by NOTIFY: refused within 1 s (issue 26), not
    // necessarily on the very next request (a full CI run once saw one more 200).
    const deadline = Date.now() + 1000;
    let res = await extra.get('/api/v1/companies');
    while (res.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      res = await extra.get('/api/v1/companies');
    }
    expectError(res, 403, /revoked/);
    expect((await mine.http.get('/api/v1/companies')).status).toBe(200);
  });

  it('403 while the workspace is suspended, 200 after resume', async () => {
    const mine = await app.tenant();
    await setWorkspaceStatus(app.runtime.deps.orm.em.fork(), mine.workspaceId, 'suspended');
    const res = await mine.http.get('/api/v1/companies');
    expectError(res, 403, /suspended/);
    await setWorkspaceStatus(app.runtime.deps.orm.em.fork(), mine.workspaceId, 'active');
    expect((await mine.http.get('/api/v1/companies')).status).toBe(200);
  });

  it('403 naming the scope when the key lacks it (read key cannot write, write key cannot read)', async () => {
    const reader = await app.key(t.workspaceId, ['read']);
    const denied = await reader.post('/api/v1/companies', { name: 'Nope' });
    expectError(denied, 403, /write/);
    const writer = await app.key(t.workspaceId, ['write']);
    expect((await writer.post('/api/v1/companies', { name: 'Yes' })).status).toBe(201);
    expect((await writer.get('/api/v1/companies')).status).toBe(403);
  });

  it('403 when the route requires a role the key does not have', async () => {
    // A route declared with roles, mounted on an app of its own to exercise the shared guard.
    const adminOnly = route({
      method: 'GET',
      path: '/api/v1/test-admin-only',
      section: 'Test',
      summary: 'admin only',
      access: { scopes: ['read'], roles: ['owner', 'admin'] },
      query: z.object({}),
      handler: async ({ ctx }) => ok({ role: ctx.actor.role }),
    });
    const koa = createApp(app.runtime.deps, [adminOnly]);
    const server = koa.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const member = await app.key(t.workspaceId, ['read'], 'member');
      const admin = await app.key(t.workspaceId, ['read'], 'admin');
      const denied = await new HttpClient(base, member.apiKey).get('/api/v1/test-admin-only');
      expectError(denied, 403, /owner or admin/);
      expect((await new HttpClient(base, admin.apiKey).get('/api/v1/test-admin-only')).body.data).toEqual({
        role: 'admin',
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('rate limits', () => {
  it('counts per key in Postgres across API processes, sends headers, and answers 429 with Retry-After', async () => {
    const limited1 = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_DAY: '100' });
    const limited2 = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_DAY: '100' });
    try {
      const mine = await limited1.tenant();
      const first = await mine.http.get('/api/v1/companies');
      expect(first.headers.get('x-ratelimit-limit-minute')).toBe('3');
      expect(first.headers.get('x-ratelimit-limit-day')).toBe('100');
      const second = await new HttpClient(limited2.baseUrl, mine.apiKey).get('/api/v1/companies');
      const third = await mine.http.get('/api/v1/companies');
      const remaining = [first, second, third].map((r) => Number(r.headers.get('x-ratelimit-remaining-minute')));
      // Minute windows can roll over between calls; within one window the count goes down by one each time.
      if (remaining[0] === 2 && remaining[2] === 0) expect(remaining).toEqual([2, 1, 0]);
      const fourth = await new HttpClient(limited2.baseUrl, mine.apiKey).get('/api/v1/companies');
      if (remaining[2] === 0) {
        expectError(fourth, 429, /rate limit/);
        const retryAfter = Number(fourth.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(fourth.headers.get('x-ratelimit-remaining-minute')).toBe('0');
      }
      // Another key of the same workspace has its own budget.
      const other = await limited1.key(mine.workspaceId, ['read']);
      expect((await other.get('/api/v1/companies')).status).toBe(200);
    } finally {
      await Promise.all([limited1.close(), limited2.close()]);
    }
  });

  it('the daily limit applies too', async () => {
    await withTenantOfApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PER_DAY: '2' }, async (mine) => {
      await mine.http.get('/api/v1/companies');
      await mine.http.get('/api/v1/companies');
      const third = await mine.http.get('/api/v1/companies');
      expect(third.status).toBe(429);
      expect(third.headers.get('x-ratelimit-remaining-day')).toBe('0');
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
});
