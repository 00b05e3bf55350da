import net from 'node:net';
import pg from 'pg';
import { hashKey } from '../api-keys.service';
import type { Authenticated } from '../authenticate';
import { createKeyCache } from '../key-cache';
import { createLogger } from '../../../platform/logger';
import { HttpClient, startTestApp, type TestApp } from '../../../test/support/app';
import { startTcpProxy } from '../../../test/support/tcp-proxy';

// Two API processes' worth of apps in one jest process: each has its own key cache and LISTEN connection.
let a: TestApp;
let b: TestApp;
let sql: pg.Client;
beforeAll(async () => {
  [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  sql = new pg.Client({ connectionString: a.config.databaseUrl });
  await sql.connect();
});
afterAll(async () => {
  await sql.end();
  await Promise.all([a.close(), b.close()]);
});

const both = (apiKey: string): HttpClient[] => [new HttpClient(a.baseUrl, apiKey), new HttpClient(b.baseUrl, apiKey)];

/**
 * Both apps hold the key in their cache. Polled: a change to another key by a parallel suite drops a lookup
 * in flight, and on a loaded machine the cache stays off until its LISTEN connection's first heartbeats.
 */
async function warm(apiKey: string): Promise<void> {
  const [x, y] = both(apiKey);
  for (const [app, http] of [
    [a, x],
    [b, y],
  ] as const) {
    const started = Date.now();
    do expect((await http!.get('/api/v1/whoami')).status).toBe(200);
    while (!app.runtime.deps.keyCache!.get(hashKey(apiKey)) && Date.now() - started < 15_000);
    expect(app.runtime.deps.keyCache!.get(hashKey(apiKey))).toBeDefined();
  }
}

/** A new tenant whose key both apps have cached, then `update` run by plain SQL with its workspace id as $1. */
async function cachedThenUpdated(update: string, params: unknown[] = []) {
  const t = await a.tenant();
  await warm(t.apiKey);
  await sql.query(update, [t.workspaceId, ...params]);
  return t;
}

/** Milliseconds until `check` holds on both apps (polled every 20 ms), or fails after 1 s. */
async function withinOneSecond(
  apiKey: string,
  path: string,
  check: (status: number, body: { error?: string; data?: { key: { role: string } } }) => boolean,
) {
  const started = Date.now();
  for (const http of both(apiKey)) {
    for (;;) {
      const res = await http.get(path);
      if (check(res.status, res.body)) break;
      if (Date.now() - started > 1000) throw new Error(`still ${res.status} after 1 s on ${http.baseUrl}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return Date.now() - started;
}

describe('API-key cache with NOTIFY invalidation, on every API process', () => {
  it('a key revoked by plain SQL is refused within 1 s on both apps', async () => {
    const t = await cachedThenUpdated('update api_key set revoked_at = now() where workspace_id = $1');
    await withinOneSecond(
      t.apiKey,
      '/api/v1/whoami',
      (status, body) => status === 403 && /revoked/.test(body.error ?? ''),
    );
  });

  it('a role change shows within 1 s on both apps', async () => {
    const t = await cachedThenUpdated(`update api_key set role = 'member' where workspace_id = $1`);
    await withinOneSecond(
      t.apiKey,
      '/api/v1/whoami',
      (status, body) => status === 200 && body.data?.key.role === 'member',
    );
  });

  it('a removed scope is enforced within 1 s on both apps', async () => {
    const t = await cachedThenUpdated(`update api_key set scopes = array['write'] where workspace_id = $1`);
    await withinOneSecond(t.apiKey, '/api/v1/companies', (status) => status === 403);
  });

  it('a suspended workspace is refused within 1 s on both apps, and accepted again after resume', async () => {
    const t = await cachedThenUpdated(`update workspace set status = 'suspended' where id = $1`);
    await withinOneSecond(
      t.apiKey,
      '/api/v1/whoami',
      (status, body) => status === 403 && /suspended/.test(body.error ?? ''),
    );
    await sql.query(`update workspace set status = 'active' where id = $1`, [t.workspaceId]);
    await withinOneSecond(t.apiKey, '/api/v1/whoami', (status) => status === 200);
  });

  it('a last_used_at write does not empty the caches (only grant changes notify)', async () => {
    const t = await cachedThenUpdated('update api_key set last_used_at = now(), name = $2 where workspace_id = $1', [
      'x',
    ]);
    await new Promise((r) => setTimeout(r, 200));
    for (const app of [a, b]) expect(app.runtime.deps.keyCache!.get(hashKey(t.apiKey))).toBeDefined();
  });

  it('rate limits stay exact across the two apps while both cache the key', async () => {
    const [c, d] = await Promise.all([
      startTestApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PER_DAY: '10' }),
      startTestApp({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PER_DAY: '10' }),
    ]);
    try {
      const t = await c.tenant();
      const clients = [new HttpClient(c.baseUrl, t.apiKey), new HttpClient(d.baseUrl, t.apiKey)];
      const statuses: number[] = [];
      for (let i = 0; i < 14; i++) statuses.push((await clients[i % 2]!.get('/api/v1/whoami')).status);
      expect(c.runtime.deps.keyCache!.get(hashKey(t.apiKey))).toBeDefined();
      expect(d.runtime.deps.keyCache!.get(hashKey(t.apiKey))).toBeDefined();
      expect(statuses).toEqual([...Array(10).fill(200), ...Array(4).fill(429)]);
    } finally {
      await Promise.all([c.close(), d.close()]);
    }
  });
});

describe('the key cache fails closed', () => {
  const actor = { keyId: 'k', workspaceId: 'w' } as Authenticated;
  const keyCacheOn = (connectionString: string) =>
    createKeyCache<Authenticated>({ connectionString, log: createLogger('silent', 'test'), ttlMs: 60_000 });

  it('answers nothing while its LISTEN connection is down, and again after it is back', async () => {
    const url = new URL(a.config.databaseUrl);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const cache = keyCacheOn(url.toString());
    try {
      await cache.start();
      cache.set('h', actor, cache.generation);
      expect(cache.get('h')).toBe(actor);
      await proxy.down();
      await new Promise((r) => setTimeout(r, 100));
      expect(cache.usable).toBe(false);
      expect(cache.get('h')).toBeUndefined();
      cache.set('h', actor, cache.generation);
      expect(cache.get('h')).toBeUndefined();
      await proxy.up();
      const started = Date.now();
      while (!cache.usable && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 50));
      expect(cache.usable).toBe(true);
      // What was cached before the outage is gone: a change may have been missed meanwhile.
      expect(cache.get('h')).toBeUndefined();
    } finally {
      await cache.stop();
      await proxy.close();
    }
  });

  it('answers nothing once its heartbeat is late (a connection that hangs without closing)', async () => {
    const url = new URL(a.config.databaseUrl);
    const target = { host: url.hostname, port: Number(url.port || 5432) };
    let hung = false;
    const sockets = new Set<net.Socket>();
    // Forwards until `hung`, then swallows every byte both ways and keeps the sockets open.
    const server = net.createServer((client) => {
      const upstream = net.connect(target);
      for (const sock of [client, upstream]) sockets.add(sock);
      for (const sock of [client, upstream]) sock.on('error', () => undefined);
      client.on('data', (d) => void (hung || upstream.write(d)));
      upstream.on('data', (d) => void (hung || client.write(d)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url.port = String((server.address() as net.AddressInfo).port);
    const cache = keyCacheOn(url.toString());
    try {
      await cache.start();
      cache.set('h', actor, cache.generation);
      expect(cache.get('h')).toBe(actor);
      hung = true;
      const started = Date.now();
      while (cache.get('h') && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 20));
      expect(cache.get('h')).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await Promise.race([cache.stop(), new Promise((r) => setTimeout(r, 2000))]);
      server.close();
      for (const sock of sockets) sock.destroy();
    }
  });

  it('a lookup that raced an invalidation is not stored', async () => {
    const cache = keyCacheOn(a.config.databaseUrl);
    try {
      await cache.start();
      const seen = cache.generation;
      await sql.query(`select pg_notify('crm_api_key_changed', 'test')`);
      const started = Date.now();
      while (cache.generation === seen && Date.now() - started < 1000) await new Promise((r) => setTimeout(r, 10));
      cache.set('h', actor, seen);
      expect(cache.get('h')).toBeUndefined();
      cache.set('h', actor, cache.generation);
      expect(cache.get('h')).toBe(actor);
    } finally {
      await cache.stop();
    }
  });
});
