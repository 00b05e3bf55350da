import http from 'node:http';
import { Client as PgClient } from 'pg';
import { pruneIdempotencyKeys } from '../../platform/idempotency/idempotency.service';
import { newId } from '../../platform/ids';
import type { HttpResult, Tenant, TestApp } from '../support/app';
import { withTestApp } from '../support/suites';
import { waitFor } from '../support/automation-engine';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s), { tenant: 'Idempotency' });

const key = (): string => `key-${newId()}`;
const companiesNamed = async (tenant: Tenant, name: string): Promise<number> =>
  (await tenant.http.get(`/api/v1/companies?limit=100&search=${encodeURIComponent(name)}`)).body.data.filter(
    (c: { name: string }) => c.name === name,
  ).length;
const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
  app.runtime.deps.orm.em.fork().getConnection().execute<T[]>(text, params);
const rowOf = async (workspaceId: string, k: string) =>
  (
    await sql<{ state: string; response_status: number | null }>(
      `select state, response_status from idempotency_key where workspace_id = ? and key = ?`,
      [workspaceId, k],
    )
  )[0];

/** Holds a SHARE lock on the company table (inserts wait) until released. */
async function blockCompanyInserts(): Promise<() => Promise<void>> {
  const pg = new PgClient({ connectionString: app.config.databaseUrl });
  await pg.connect();
  await pg.query('begin');
  await pg.query('lock table company in share mode');
  return async () => {
    await pg.query('rollback');
    await pg.end();
  };
}

describe('Idempotency-Key on POST', () => {
  it('replays the first response for a retry with the same body: one write, header Idempotent-Replayed', async () => {
    const k = key();
    const name = `Idem ${newId()}`;
    // Stored and replayed byte for byte, also quotes, placeholders, backslashes and characters outside ASCII.
    const city = "Århus 'Ø' ? $1 \\ 😀";
    const first = await t.http.post('/api/v1/companies', { name, city }, { headers: { 'idempotency-key': k } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same JSON with keys in another order is the same request.
    const again = await t.http.post('/api/v1/companies', { city, name }, { headers: { 'idempotency-key': k } });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(again.body).toEqual(first.body);
    expect(again.body.data.city).toBe(city);
    expect(await companiesNamed(t, name)).toBe(1);
    // Without the header every POST writes.
    expect((await t.http.post('/api/v1/companies', { name, city: 'Aarhus' })).status).toBe(201);
    expect(await companiesNamed(t, name)).toBe(2);
  });

  it('the same key with a different body, path or query is 422 idempotency_mismatch (nothing written)', async () => {
    const k = key();
    const name = `Mismatch ${newId()}`;
    expect((await t.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } })).status).toBe(201);
    for (const [path, body] of [
      ['/api/v1/companies', { name: `${name} 2` }],
      ['/api/v1/companies', { name, city: 'Odense' }],
      ['/api/v1/companies?preview=true', { name }],
      ['/api/v1/people', { firstName: name }],
    ] as const) {
      const res = await t.http.post(path, body, { headers: { 'idempotency-key': k } });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'idempotency_mismatch' });
      expect(res.body.error).toContain('Idempotency-Key');
    }
    expect(await companiesNamed(t, name)).toBe(1);
    expect(await companiesNamed(t, `${name} 2`)).toBe(0);
  });

  it('keys are per workspace', async () => {
    const other = await app.tenant('Idempotency other');
    const k = key();
    const name = `Shared key ${newId()}`;
    const a = await t.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } });
    const b = await other.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data._id).not.toBe(a.body.data._id);
  });

  it('stores 4xx answers and replays them', async () => {
    const k = key();
    const first = await t.http.post('/api/v1/companies', { city: 'no name' }, { headers: { 'idempotency-key': k } });
    expect(first.status).toBe(400);
    const again = await t.http.post('/api/v1/companies', { city: 'no name' }, { headers: { 'idempotency-key': k } });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await rowOf(t.workspaceId, k)).toEqual({ state: 'completed', response_status: 400 });
  });

  it('validates the key: 1-255 printable ASCII characters, else 400', async () => {
    const ok = 'k'.repeat(255);
    const res = await t.http.post(
      '/api/v1/companies',
      { name: `Long key ${newId()}` },
      { headers: { 'idempotency-key': ok } },
    );
    expect(res.status).toBe(201);
    const bad = ['', 'k'.repeat(256), 'tab\there', 'caf\u00e9'];
    for (const value of bad) {
      const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        // node:http sends latin-1 bytes and tabs that fetch would refuse to send.
        const req = http.request(
          `${app.baseUrl}/api/v1/companies`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${t.apiKey}`,
              'content-type': 'application/json',
              'idempotency-key': value,
            },
          },
          (r) => {
            let body = '';
            r.setEncoding('utf8')
              .on('data', (c: string) => (body += c))
              .on('end', () => resolve({ status: r.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ name: 'Never written' }));
      });
      expect({ value, status: status.status }).toEqual({ value, status: 400 });
      expect(JSON.parse(status.body)).toMatchObject({
        code: 'validation',
        error: expect.stringContaining('Idempotency-Key'),
      });
    }
    expect(await companiesNamed(t, 'Never written')).toBe(0);
  });

  it('two concurrent requests with one key: exactly one write, the other 409 idempotency_in_progress', async () => {
    const k = key();
    const name = `Concurrent ${newId()}`;
    const release = await blockCompanyInserts();
    let first: Promise<HttpResult>;
    try {
      first = t.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } });
      await waitFor(
        async () => (await rowOf(t.workspaceId, k))?.state === 'in_progress',
        10_000,
        'the first request to claim the key',
      );
      const second = await t.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } });
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ code: 'idempotency_in_progress' });
      expect(second.headers.get('retry-after')).toBe('1');
    } finally {
      await release();
    }
    const done = await first;
    expect(done.status).toBe(201);
    expect(await companiesNamed(t, name)).toBe(1);
    const replay = await t.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data._id).toBe(done.body.data._id);
  });

  it('a retry after a client timeout whose write committed replays the stored response instead of writing again', async () => {
    const k = key();
    const name = `Timed out ${newId()}`;
    const release = await blockCompanyInserts();
    try {
      const aborted = new AbortController();
      const pending = fetch(`${app.baseUrl}/api/v1/companies`, {
        method: 'POST',
        signal: aborted.signal,
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json', 'idempotency-key': k },
        body: JSON.stringify({ name }),
      }).catch((err: unknown) => err);
      await waitFor(
        async () => (await rowOf(t.workspaceId, k))?.state === 'in_progress',
        10_000,
        'the request to reach the server',
      );
      aborted.abort(); // the client gives up (timeout) while the server is still writing
      expect(await pending).toMatchObject({ name: 'AbortError' });
    } finally {
      await release();
    }
    await waitFor(async () => (await rowOf(t.workspaceId, k))?.state === 'completed', 10_000, 'the write to commit');
    expect(await companiesNamed(t, name)).toBe(1);
    const retry = await t.http.post('/api/v1/companies', { name }, { headers: { 'idempotency-key': k } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.name).toBe(name);
    expect(await companiesNamed(t, name)).toBe(1);
  });

  it('a 5xx releases the key, so the retry runs again', async () => {
    // Sending an SMS answers 503 not_configured while no SMS gateway is set up (the test app has none).
    const k = key();
    const send = () =>
      t.http.post('/api/v1/sms', { to: '+4512345678', message: 'hello' }, { headers: { 'idempotency-key': k } });
    const first = await send();
    expect(first.status).toBe(503);
    expect(await rowOf(t.workspaceId, k)).toBeUndefined();
    const again = await send();
    expect(again.status).toBe(503);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('an expired key (24 h) or a stale lock (5 min, crashed process) can be used again; housekeeping deletes expired keys', async () => {
    const expired = key();
    const stale = key();
    const fresh = key();
    await sql(
      `insert into idempotency_key (workspace_id, key, request_hash, state, lock_id, response_status, response_body, response_headers, created_at, completed_at) values
        (?, ?, ?, 'completed', ?, 201, '{"data":{}}', '{}', now() - interval '25 hours', now() - interval '25 hours'),
        (?, ?, ?, 'in_progress', ?, null, null, null, now() - interval '6 minutes', null),
        (?, ?, ?, 'completed', ?, 201, '{"data":{}}', '{}', now() - interval '23 hours', now() - interval '23 hours')`,
      [
        t.workspaceId,
        expired,
        'x'.repeat(64),
        newId(),
        t.workspaceId,
        stale,
        'x'.repeat(64),
        newId(),
        t.workspaceId,
        fresh,
        'x'.repeat(64),
        newId(),
      ],
    );
    for (const k of [expired, stale]) {
      const res = await t.http.post(
        '/api/v1/companies',
        { name: `Reused ${k}` },
        { headers: { 'idempotency-key': k } },
      );
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    // The fresh key still guards its (different) request.
    expect(
      (await t.http.post('/api/v1/companies', { name: 'Other' }, { headers: { 'idempotency-key': fresh } })).status,
    ).toBe(422);

    const old = key();
    await sql(
      `insert into idempotency_key (workspace_id, key, request_hash, state, lock_id, created_at) values (?, ?, ?, 'completed', ?, now() - interval '25 hours')`,
      [t.workspaceId, old, 'x'.repeat(64), newId()],
    );
    expect(await pruneIdempotencyKeys(app.runtime.deps.orm.em.fork())).toBeGreaterThanOrEqual(1);
    expect(await rowOf(t.workspaceId, old)).toBeUndefined();
    expect(await rowOf(t.workspaceId, fresh)).toBeDefined();
  });

  it('other methods ignore the header', async () => {
    const k = key();
    const created = (await t.http.post('/api/v1/companies', { name: `Put ${newId()}` })).body.data;
    const a = await t.http.put(
      `/api/v1/companies/${created._id}`,
      { city: 'A' },
      { headers: { 'idempotency-key': k } },
    );
    const b = await t.http.put(
      `/api/v1/companies/${created._id}`,
      { city: 'B' },
      { headers: { 'idempotency-key': k } },
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.data.city).toBe('B');
  });
});
