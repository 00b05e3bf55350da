import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { expectError, expectOk, expectQueriesRefused } from '../../../test/support/expect';

let app: TestApp;
let a: Tenant;
let b: Tenant;
let c: Tenant;
beforeAll(async () => {
  app = await startTestApp();
  [a, b, c] = [await app.tenant(), await app.tenant(), await app.tenant()];
});
afterAll(() => app.close());

const obs = (profile: string, extra: Record<string, unknown> = {}) => ({ profile, ...extra });

describe('/extension/contribution', () => {
  it('is off by default; admins switch it; members and keys without write cannot', async () => {
    expect((await a.http.get('/api/v1/extension/contribution')).body.data).toEqual({
      enabled: false,
      changedAt: null,
      changedBy: null,
      observations: 0,
    });
    const on = await a.http.put('/api/v1/extension/contribution', { enabled: true });
    expectOk(on, { enabled: true, changedBy: a.userId });
    expect((await a.http.get('/api/v1/extension/contribution')).body.data.enabled).toBe(true);
    const member = await app.key(a.workspaceId, ['read', 'write'], 'member');
    expect((await member.put('/api/v1/extension/contribution', { enabled: false })).status).toBe(403);
    const reader = await app.key(a.workspaceId, ['read'], 'admin');
    expect((await reader.put('/api/v1/extension/contribution', { enabled: false })).status).toBe(403);
    for (const body of [{}, { enabled: 'true' }, { enabled: 1 }, { enabled: true, extra: 1 }]) {
      expect([JSON.stringify(body), (await a.http.put('/api/v1/extension/contribution', body)).status]).toEqual([
        JSON.stringify(body),
        400,
      ]);
    }
    // Tenancy: b still off.
    expect((await b.http.get('/api/v1/extension/contribution')).body.data.enabled).toBe(false);
  });
});

describe('/extension/observations and /extension/network', () => {
  it('stores observations (scope contribute), validates each item and caps the count', async () => {
    const res = await a.http.post('/api/v1/extension/observations', {
      observations: [
        obs('https://dk.linkedin.com/in/Net-Person/', {
          name: 'Net Person',
          title: 'CTO',
          companyName: 'Acme',
          companyProfile: 'linkedin.com/company/acme-net',
          observedAt: '2026-01-01T00:00:00Z',
        }),
        obs('linkedin.com/company/acme-net', { name: 'Acme', domain: 'https://www.acme-net.dk/' }),
        obs('https://example.org/profiles/someone', { kind: 'person', handle: '@Someone', name: 'Someone' }),
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ received: 3, stored: 3, shared: true });
    const contributor = await app.key(a.workspaceId, ['contribute']);
    expect(
      (
        await contributor.post('/api/v1/extension/observations', {
          observations: [obs('linkedin.com/in/net-person', { headline: 'Builds things' })],
        })
      ).status,
    ).toBe(200);
    const writer = await app.key(a.workspaceId, ['read', 'write']);
    expect(
      (await writer.post('/api/v1/extension/observations', { observations: [obs('linkedin.com/in/x')] })).status,
    ).toBe(403);
    expect((await a.http.get('/api/v1/extension/contribution')).body.data.observations).toBe(3);

    const bad = [
      {},
      { observations: [] },
      { observations: 'x' },
      { observations: [{}] },
      { observations: [obs('not a url')] },
      { observations: [obs('https://example.org/p')] }, // kind cannot be inferred
      { observations: [obs('linkedin.com/in/x', { kind: 'robot' })] },
      { observations: [obs('linkedin.com/in/x', { secret: 1 })] },
      { observations: [obs('linkedin.com/in/x', { domain: 'no domain' })] },
      { observations: [obs('linkedin.com/in/x', { employees: -1 })] },
      { observations: [obs('linkedin.com/in/x', { name: 'x'.repeat(301) })] },
      { observations: Array.from({ length: 501 }, (_, i) => obs(`linkedin.com/in/p${i}`)) },
    ];
    for (const body of bad) {
      const r = await a.http.post('/api/v1/extension/observations', body);
      expect([JSON.stringify(body).slice(0, 80), r.status, typeof r.body.error]).toEqual([
        JSON.stringify(body).slice(0, 80),
        400,
        'string',
      ]);
    }
    const max = await a.http.post('/api/v1/extension/observations', {
      observations: Array.from({ length: 500 }, (_, i) => obs(`linkedin.com/in/bulk-${i}`)),
    });
    expect(max.body.data).toMatchObject({ received: 500, stored: 500 });
  });

  it('answers the network only to contributing workspaces, only from contributing workspaces, without CRM data', async () => {
    // b observes the same person but does not contribute (yet): 403 for b, nothing of b's in a's answer.
    await b.http.post('/api/v1/extension/observations', {
      observations: [obs('linkedin.com/in/net-person', { location: 'Odense' })],
    });
    await b.http.post('/api/v1/companies', { name: 'B private company', profileUrl: 'linkedin.com/company/acme-net' });
    const refused = await b.http.get('/api/v1/extension/network?profile=linkedin.com/in/net-person');
    expectError(refused, 403, /contribut/);

    const before = await a.http.get(
      `/api/v1/extension/network?profile=${encodeURIComponent('https://www.linkedin.com/in/net-person')}`,
    );
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect(before.body.data[0]).toMatchObject({
      profileUrl: 'https://linkedin.com/in/net-person',
      handle: 'net-person',
      kind: 'person',
      contributors: 1,
      facts: { headline: 'Builds things' },
    });
    expect(before.body.data[0].facts.location).toBeUndefined();

    await b.http.put('/api/v1/extension/contribution', { enabled: true });
    const after = await a.http.get('/api/v1/extension/network?handle=Net-Person');
    expect(after.body.data[0]).toMatchObject({
      contributors: 2,
      facts: { location: 'Odense', headline: 'Builds things' },
    });
    const text = JSON.stringify(after.body);
    for (const secret of [a.workspaceId, b.workspaceId, 'B private company']) expect(text).not.toContain(secret);
    expect((await a.http.get('/api/v1/extension/network?handle=@someone')).body.data[0]).toMatchObject({
      profileUrl: 'https://example.org/profiles/someone',
      kind: 'person',
    });
    expect((await a.http.get('/api/v1/extension/network?profile=linkedin.com/in/unknown-one')).body).toMatchObject({
      data: [],
      total: 0,
    });

    // Switching off stops sharing b's observations again.
    await b.http.put('/api/v1/extension/contribution', { enabled: false });
    expect((await a.http.get('/api/v1/extension/network?handle=net-person')).body.data[0].contributors).toBe(1);
    expect((await c.http.get('/api/v1/extension/network?handle=net-person')).status).toBe(403);
  });

  it('validates the network query', async () => {
    const badQueries = ['', '?profile=', '?profile=nope', '?handle=', '?handle=x&other=1', '?handle=x&limit=101'];
    await expectQueriesRefused(a.http, '/api/v1/extension/network', badQueries);
  });
});

describe('/extension/domains', () => {
  it('lists the workspace company domains (website, else e-mail; free-mail left out), paged', async () => {
    const x = (await c.http.post('/api/v1/companies', { name: 'X', website: 'https://www.x-domains.dk/a' })).body.data;
    const y = (await c.http.post('/api/v1/companies', { name: 'Y', email: 'hi@y-domains.dk', website: 'x-domains.dk' }))
      .body.data;
    await c.http.post('/api/v1/companies', { name: 'Free', email: 'someone@gmail.com' });
    await a.http.post('/api/v1/companies', { name: 'Elsewhere', website: 'elsewhere-domains.dk' });
    const res = await c.http.get('/api/v1/extension/domains');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { domain: 'x-domains.dk', companyIds: [x._id, y._id].sort() },
        { domain: 'y-domains.dk', companyIds: [y._id] },
      ],
      page: 1,
      limit: 20,
      total: 2,
    });
    expect((await c.http.get('/api/v1/extension/domains?page=2&limit=1')).body).toMatchObject({
      data: [{ domain: 'y-domains.dk' }],
      total: 2,
    });
    expect((await c.http.get('/api/v1/extension/domains?limit=1001')).status).toBe(400);
    const noRead = await app.key(c.workspaceId, ['write']);
    expect((await noRead.get('/api/v1/extension/domains')).status).toBe(403);
  });
});
