import { HttpClient, startTestApp, type TestApp } from '../support/app';

const BAD = 'sb_0000000000000000000000000000000000000000';

describe('failed authentication is rate limited per client address', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => app.close());

  it('after the limit of invalid keys, requests with a key answer 429 with Retry-After (before any lookup), like the per-key limit', async () => {
    const t = await app.tenant();
    const bad = new HttpClient(app.baseUrl, BAD);
    for (let i = 0; i < 3; i++) expect((await bad.get('/api/v1/companies')).status).toBe(401);
    const limited = await bad.get('/api/v1/companies');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      code: 'rate_limited',
      error: expect.stringContaining('failed authentications'),
    });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Guessing through the query parameter or another header value does not help.
    expect((await app.anonymous.get(`/api/v1/companies?api_key=${BAD}`)).status).toBe(429);
    expect((await bad.get('/api/v1/companies', { headers: { 'x-forwarded-for': '10.9.9.9' } })).status).toBe(429);
    // The address is blocked for every key until its window ends (documented), valid ones included.
    expect((await t.http.get('/api/v1/companies')).status).toBe(429);
    // No key at all costs no lookup: still the plain 401.
    expect((await app.anonymous.get('/api/v1/companies')).status).toBe(401);
  });
});

describe('behind a proxy (TRUST_PROXY=1) the forwarded client address counts', () => {
  let app: TestApp;
  beforeAll(async () => {
    const before = process.env.TRUST_PROXY;
    process.env.TRUST_PROXY = '1';
    try {
      app = await startTestApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
    } finally {
      if (before === undefined) delete process.env.TRUST_PROXY;
      else process.env.TRUST_PROXY = before;
    }
  });
  afterAll(() => app.close());

  it('limits each forwarded address on its own', async () => {
    const t = await app.tenant();
    const bad = new HttpClient(app.baseUrl, BAD);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    expect((await bad.get('/api/v1/companies', from('10.0.0.1'))).status).toBe(401);
    expect((await bad.get('/api/v1/companies', from('10.0.0.1'))).status).toBe(401);
    expect((await bad.get('/api/v1/companies', from('10.0.0.1'))).status).toBe(429);
    expect((await bad.get('/api/v1/companies', from('10.0.0.2'))).status).toBe(401);
    expect((await t.http.get('/api/v1/companies', from('10.0.0.2'))).status).toBe(200);
    expect((await t.http.get('/api/v1/companies', from('10.0.0.1'))).status).toBe(429);
  });
});
