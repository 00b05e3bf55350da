// Child process of bench/read.bench.ts: one HTTP server per process, so the two sides never share
// an event loop. `api` runs the real API; `raw` is a bare Koa + pg handler doing the same key lookup
// and row select (no rate limit, no ORM, no validation, no logging).
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pg from 'pg';
import pino from 'pino';
import { buildApi } from '../api/bootstrap';
import { loadConfig } from '../domain/config';
import { createLogger } from '../domain/logger';

export type ReadChildMessage = { type: 'ready'; port: number } | { type: 'cpu'; micros: number };

const send = (message: ReadChildMessage): void => void process.send?.(message);

function onStop(stop: () => Promise<void>): void {
  process.on('message', (message: { type: string }) => {
    // CPU time of this process (user + system) since start; the parent takes the difference over a run.
    if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', micros: usage.user + usage.system });
    }
    if (message.type === 'stop') void stop().then(() => process.exit(0));
  });
}

async function api(): Promise<void> {
  // Limits high enough that the run never sees a 429; counting still happens on every request.
  const config = loadConfig({ ...process.env, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_DAY: '1000000000' });
  // The production log line per request is part of the cost: info level, written to /dev/null.
  const log = createLogger('info', 'bench-api', pino.destination({ dest: '/dev/null', sync: false }));
  const runtime = await buildApi(config, log);
  const listener = runtime.app.listen(0, '127.0.0.1', () =>
    send({ type: 'ready', port: (listener.address() as AddressInfo).port }),
  );
  onStop(async () => {
    listener.close();
    listener.closeAllConnections?.();
    await runtime.close();
  });
}

async function raw(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DB_POOL_MAX ?? 10) });
  const app = new Koa();
  app.use(async (ctx) => {
    const match = /^\/api\/v1\/companies\/([0-9a-f]{24})$/.exec(ctx.path);
    const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
    if (ctx.method !== 'GET' || !match || !bearer) {
      ctx.status = 404;
      return;
    }
    const hash = createHash('sha256').update(bearer[1]!).digest('hex');
    const key = await pool.query<{ workspace_id: string }>(
      `select k.workspace_id from api_key k join workspace w on w.id = k.workspace_id
        where k.hash = $1 and k.revoked_at is null and w.status = 'active'`,
      [hash],
    );
    if (!key.rows[0]) {
      ctx.status = 401;
      return;
    }
    const row = await pool.query('select * from company where id = $1 and workspace_id = $2', [
      match[1],
      key.rows[0].workspace_id,
    ]);
    if (!row.rows[0]) {
      ctx.status = 404;
      return;
    }
    ctx.body = { data: row.rows[0] };
  });
  const listener = app.listen(0, '127.0.0.1', () =>
    send({ type: 'ready', port: (listener.address() as AddressInfo).port }),
  );
  onStop(async () => {
    listener.closeAllConnections?.();
    await new Promise((resolve) => listener.close(resolve));
    await pool.end();
  });
}

const [mode, ...args] = process.argv.slice(2);
const run = mode === 'api' ? api() : raw(args[0]!);
run.catch((error: unknown) => {
  process.stderr.write(`[bench child ${mode}] ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
