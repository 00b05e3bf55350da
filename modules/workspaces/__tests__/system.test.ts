import { startTestApp, type TestApp } from '../../../test/support/app';
import { expectError } from '../../../test/support/expect';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

describe('health and readiness', () => {
  it('GET /healthz answers without auth', async () => {
    const res = await app.anonymous.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/^[\w.-]+$/);
  });

  it('GET /readyz is 200 when Postgres, Temporal and Meilisearch answer', async () => {
    const res = await app.anonymous.get('/readyz');
    expect(res.body.checks).toEqual({ postgres: 'ok', temporal: 'ok', meilisearch: 'ok' });
    expect(res.status).toBe(200);
  });

  it('GET /readyz is 503 naming the unreachable service', async () => {
    const broken = await startTestApp({ MEILI_URL: 'http://127.0.0.1:9', TEMPORAL_ADDRESS: '127.0.0.1:9' });
    try {
      const res = await broken.anonymous.get('/readyz');
      expectError(res, 503, /temporal/);
      expect(res.body.error).toMatch(/meilisearch/);
      expect(res.body.checks.postgres).toBe('ok');
    } finally {
      await broken.close();
    }
  });

  it('echoes a sane incoming request id and replaces an unsafe one', async () => {
    const mine = await app.anonymous.get('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const unsafe = await app.anonymous.get('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(unsafe.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });
});

describe('conventions', () => {
  it('unknown route is 404 with { error }', async () => {
    expectError(await app.anonymous.get('/api/v1/no-such-thing'), 404);
  });
});
