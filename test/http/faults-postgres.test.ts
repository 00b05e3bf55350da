/**
 * Postgres outage: the app reaches Postgres through a TCP proxy that the test takes down (open
 * connections cut, new ones refused) and brings back; the shared test database keeps running.
 */
import { startTestApp, type Tenant, type TestApp } from '../support/app';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

let proxy: TcpProxy;
let app: TestApp;
let t: Tenant;
beforeAll(async () => {
  const url = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.port = String(proxy.port);
  app = await startTestApp({ DATABASE_URL: url.toString() });
  t = await app.tenant('Postgres outage');
});
afterAll(async () => {
  await proxy.up();
  await app?.close();
  await proxy.close();
});

describe('while Postgres is down', () => {
  it('reads and writes answer 503 unavailable with Retry-After (not 500) and recover when it is back', async () => {
    expect((await t.http.get('/api/v1/companies')).status).toBe(200);
    await proxy.down();
    try {
      for (const call of [
        () => t.http.get('/api/v1/companies'),
        () => t.http.post('/api/v1/companies', { name: 'During outage' }),
      ]) {
        const started = Date.now();
        const res = await call();
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: expect.stringContaining('unavailable'), code: 'unavailable' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } finally {
      await proxy.up();
    }
    const back = await t.http.post('/api/v1/companies', { name: 'After outage' });
    expect(back.status).toBe(201);
    const list = await t.http.get('/api/v1/companies?limit=100');
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['After outage']);
  }, 30_000);
});
