// Child process of bench/read.bench.ts: one HTTP server per process, so the two sides never share
// an event loop. `api` runs the real API and records, on request, what one request sends to Postgres
// and Meilisearch (bench/read-record.ts); `raw` is a bare Koa handler that checks the bearer key
// (sha256, like the API's cached lookup) and replays the recorded statements of the requested URL
// on a pg pool: no router, validation, ORM, tenant filter, serializer, envelope or logging.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import pg from 'pg';
import { installRecorder, replay, startRecording, stopRecording, type Recording } from './read-record';

export type ReadChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'cpu'; micros: number }
  | { type: 'recording' }
  | { type: 'recorded'; recording: Recording }
  | { type: 'profiling' }
  | { type: 'profiled'; file: string };

export type ReadParentMessage =
  | { type: 'cpu' }
  | { type: 'stop' }
  | { type: 'record-start' }
  | { type: 'record-stop' }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'routes'; keyHash: string; routes: Record<string, Recording> };

const send = (message: ReadChildMessage): void => void process.send?.(message);

// CRM_BENCH_PROFILE=1: the parent brackets each measured run with profile-start / profile-stop, so a
// profile holds only that route's requests (no start-up, seeding or warm-up).
let profiler: Session | undefined;
async function profile(message: ReadParentMessage): Promise<void> {
  if (message.type === 'profile-start') {
    profiler ??= new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    send({ type: 'profiling' });
  } else if (message.type === 'profile-stop' && profiler) {
    const { profile: taken } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    mkdirSync(path.dirname(message.file), { recursive: true });
    writeFileSync(message.file, JSON.stringify(taken));
    send({ type: 'profiled', file: message.file });
  }
}

function onMessages(stop: () => Promise<void>, other: (message: ReadParentMessage) => void = () => undefined): void {
  process.on('message', (message: ReadParentMessage) => {
    if (message.type === 'profile-start' || message.type === 'profile-stop') return void profile(message);
    // CPU time of this process (user + system) since start; the parent takes the difference over a run.
    if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', micros: usage.user + usage.system });
    } else if (message.type === 'stop') void stop().then(() => process.exit(0));
    else other(message);
  });
}

async function api(): Promise<void> {
  installRecorder();
  // Imported after the recorder is installed (it patches pg's Client and fetch).
  const { buildApi } = await import('../api/bootstrap');
  const { loadConfig } = await import('../app/config');
  const { batchedDestination, createLogger } = await import('../platform/logger');
  // Limits high enough that the run never sees a 429; counting still happens on every request.
  const config = loadConfig({ ...process.env, RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_DAY: '1000000000' });
  // The production log line per request is part of the cost: info level, the API's destination (bin/api.ts)
  // writing to /dev/null.
  const log = createLogger('info', 'bench-api', batchedDestination('/dev/null'));
  const runtime = await buildApi(config, log);
  const listener = runtime.app.listen(0, '127.0.0.1', () =>
    send({ type: 'ready', port: (listener.address() as AddressInfo).port }),
  );
  onMessages(
    async () => {
      listener.close();
      listener.closeAllConnections?.();
      await runtime.close();
    },
    (message) => {
      if (message.type === 'record-start') {
        startRecording();
        send({ type: 'recording' });
      }
      if (message.type === 'record-stop') send({ type: 'recorded', recording: stopRecording() });
    },
  );
}

async function raw(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DB_POOL_MAX ?? 10) });
  let table: { keyHash: string; routes: Map<string, Recording> } | undefined;
  const app = new Koa();
  app.use(async (ctx) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
    const recording = table?.routes.get(ctx.url);
    if (ctx.method !== 'GET' || !bearer || !recording) {
      ctx.status = 404;
      return;
    }
    if (createHash('sha256').update(bearer[1]!).digest('hex') !== table!.keyHash) {
      ctx.status = 401;
      return;
    }
    ctx.body = { data: await replay(pool, recording) };
  });
  app.silent = true; // requests still in flight when the pool closes at the end
  const listener = app.listen(0, '127.0.0.1', () =>
    send({ type: 'ready', port: (listener.address() as AddressInfo).port }),
  );
  onMessages(
    async () => {
      listener.closeAllConnections?.();
      await new Promise((resolve) => listener.close(resolve));
      await pool.end();
    },
    (message) => {
      if (message.type === 'routes')
        table = { keyHash: message.keyHash, routes: new Map(Object.entries(message.routes)) };
    },
  );
}

const [mode, ...args] = process.argv.slice(2);
const run = mode === 'api' ? api() : raw(args[0]!);
run.catch((error: unknown) => {
  process.stderr.write(`[bench child ${mode}] ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
