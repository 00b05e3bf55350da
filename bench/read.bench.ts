// `npm run bench:read`: a mix of read routes (whoami, by-id reads of companies, people, leads, deals,
// tasks, offers, contracts and sequences, two lists, search) through the whole API (key check, exact
// rate-limit count in Postgres, validation, tenant filter, envelope, request log) against a raw Koa
// handler that replays the same statements: the API child records what one request of each route sends
// to Postgres and Meilisearch (bench/read-record.ts) and the raw child sends exactly that per request.
// Each server runs in its own child process; autocannon drives both from this process with the same
// settings (10 connections, CRM_BENCH_DURATION s per route and side, default 3, after a 1 s warm-up),
// CRM_BENCH_ROUNDS rounds (default 3), per route the median of each side. Starts an embedded Postgres
// and Meilisearch (test profile, CRM_BENCH_PG_PORT / CRM_BENCH_MEILI_PORT, defaults 54349 / 7749)
// unless DATABASE_URL and MEILI_URL are set (assumed migrated).
// Last line: RESULT min_ratio=<x> min_route=<name> max_p99_ms=<n> routes=<n> (ratio = API / raw requests/s)
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig } from '../app/config';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { hashKey } from '../modules/workspaces/api-keys.service';
import { createWorkspace } from '../modules/workspaces/workspaces.service';
import { devDataDir, repoRoot } from '../infra/paths';
import { startStack } from '../infra/stack';
import { createMeiliClient } from '../search/meili';
import { reindex } from '../search/reindex';
import { HttpClient } from '../test/support/app';
import { factories } from '../test/support/factories';
import { benchLog as log, finishBench } from './bench-stack';
import type { Recording } from './read-record';
import type { ReadChildMessage, ReadParentMessage } from './read.child';
import { median } from './stats';

const CONNECTIONS = 10;
const DURATION_S = Number(process.env.CRM_BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.CRM_BENCH_ROUNDS ?? 3);
const WARMUP_S = 1;
const TARGET_RATIO = 0.6;
const TARGET_P99_MS = 20;

interface Child {
  proc: ChildProcess;
  port: number;
}

async function start(args: string[], env: NodeJS.ProcessEnv): Promise<Child> {
  const proc = fork(path.join(__dirname, 'read.child.ts'), args, {
    cwd: repoRoot,
    env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (message: ReadChildMessage) => resolve(message.type === 'ready' ? message.port : 0));
    proc.once('exit', (code) => reject(new Error(`bench child exited (${code}) before it was ready`)));
  });
  return { proc, port };
}

function ask<T extends ReadChildMessage['type']>(
  child: Child,
  message: ReadParentMessage,
  type: T,
): Promise<Extract<ReadChildMessage, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (answer: ReadChildMessage): void => {
      if (answer.type !== type) return;
      child.proc.off('message', onMessage);
      resolve(answer as Extract<ReadChildMessage, { type: T }>);
    };
    child.proc.on('message', onMessage);
    child.proc.send(message);
  });
}

async function stop(child: Child): Promise<void> {
  if (child.proc.exitCode !== null) return;
  const exited = new Promise((resolve) => child.proc.once('exit', resolve));
  child.proc.send({ type: 'stop' } satisfies ReadParentMessage);
  await exited;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
}

// CRM_BENCH_PROFILE=1 writes a V8 CPU profile of each measured run (that route and side only) to
// .data/bench/profiles/<side>-<route>-<round>.cpuprofile (open in Chrome DevTools).
const PROFILE_DIR = process.env.CRM_BENCH_PROFILE === '1' ? path.join(devDataDir(), 'bench', 'profiles') : undefined;

/** Warm-up then one measured run; refuses a run where any answer was not 2xx. */
async function measure(child: Child, label: string, url: string, apiKey: string, name = label): Promise<Load> {
  const run = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${child.port}${url}`,
      connections: CONNECTIONS,
      duration,
      headers: { authorization: `Bearer ${apiKey}` },
    });
  await run(WARMUP_S);
  if (PROFILE_DIR) await ask(child, { type: 'profile-start' }, 'profiling');
  const cpuBefore = (await ask(child, { type: 'cpu' }, 'cpu')).micros;
  const result = await run(DURATION_S);
  const cpu = (await ask(child, { type: 'cpu' }, 'cpu')).micros - cpuBefore;
  if (PROFILE_DIR) {
    const file = path.join(PROFILE_DIR, `${name.replace(/\W+/g, '-')}.cpuprofile`);
    await ask(child, { type: 'profile-stop', file }, 'profiled');
  }
  if (result.non2xx || result.errors)
    throw new Error(`${label} ${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return {
    rps: result.requests.total / DURATION_S,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: cpu / result.requests.total,
  };
}

/** One record per by-id route (plus rows for the lists and search), created through the API. */
async function seed(http: HttpClient): Promise<Record<string, string>> {
  const kinds = ['company', 'person', 'lead', 'deal', 'task', 'offer', 'contract', 'sequence'] as const;
  const ids: Record<string, string> = {};
  for (const kind of kinds) ids[kind] = await factories[kind]!(http);
  for (let i = 0; i < 20; i++) {
    await factories.company!(http);
    await factories.deal!(http);
  }
  return ids;
}

async function main(): Promise<string[]> {
  const haveDb = Boolean(process.env.DATABASE_URL?.trim() && process.env.MEILI_URL?.trim());
  const dataDir = path.join(devDataDir(), 'bench-read');
  if (!haveDb) rmSync(dataDir, { recursive: true, force: true });
  const stack = haveDb
    ? undefined
    : await startStack({
        profile: 'test',
        env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:9' },
        dataDir,
        ports: {
          postgres: Number(process.env.CRM_BENCH_PG_PORT ?? 54349),
          meilisearch: Number(process.env.CRM_BENCH_MEILI_PORT ?? 7749),
        },
        log,
      });
  const env: NodeJS.ProcessEnv = { ...process.env, ...stack?.env, TEMPORAL_ADDRESS: '127.0.0.1:9' };
  const databaseUrl = env.DATABASE_URL!;
  if (stack) await runMigrations(databaseUrl);
  const out: string[] = [];
  const children: Child[] = [];
  try {
    const orm = await MikroORM.init(ormConfig(databaseUrl));
    const ws = await createWorkspace(orm.em.fork(), { name: 'Read benchmark' });
    const api = await start(['api'], env);
    children.push(api);
    const http = new HttpClient(`http://127.0.0.1:${api.port}`, ws.apiKey);
    const ids = await seed(http);
    // Search answers from Meilisearch: index the seeded records (no worker runs here).
    const config = loadConfig(env);
    const meili = createMeiliClient(config.meiliUrl, config.meiliMasterKey);
    await reindex({ em: orm.em, client: meili, prefix: config.meiliIndexPrefix, workspaceId: ws.workspaceId });
    await orm.close(true);
    const allRoutes: [string, string][] = [
      ['whoami', '/api/v1/whoami'],
      ['company', `/api/v1/companies/${ids.company}`],
      ['person', `/api/v1/people/${ids.person}`],
      ['lead', `/api/v1/leads/${ids.lead}`],
      ['deal', `/api/v1/deals/${ids.deal}`],
      ['task', `/api/v1/tasks/${ids.task}`],
      ['offer', `/api/v1/offers/${ids.offer}`],
      ['contract', `/api/v1/contracts/${ids.contract}`],
      ['sequence', `/api/v1/sequences/${ids.sequence}`],
      ['companies list', '/api/v1/companies?page=1&limit=25'],
      ['deals list', '/api/v1/deals?page=1&limit=25'],
      ['search', '/api/v1/search?q=acme'],
    ];
    // CRM_BENCH_ROUTES=company,search: only these (by label) while investigating one route.
    const only = process.env.CRM_BENCH_ROUTES?.split(',').map((r) => r.trim());
    const routes = only ? allRoutes.filter(([label]) => only.includes(label)) : allRoutes;
    // Record each route a few times and keep the leanest request (a cached check skipped, e.g. search's queue probe).
    const recordings: Record<string, Recording> = {};
    for (const [label, url] of routes) {
      for (let i = 0; i < 4; i++) {
        await ask(api, { type: 'record-start' }, 'recording');
        const res = await http.get(url);
        if (res.status !== 200) throw new Error(`${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        const { recording } = await ask(api, { type: 'record-stop' }, 'recorded');
        const calls = recording.flat().length;
        if (i > 0 && (!recordings[url] || calls < recordings[url].flat().length)) recordings[url] = recording;
      }
      log(`${label}: ${recordings[url]!.length} round trips (${recordings[url]!.flat().length} calls)`);
    }
    const raw = await start(['raw', databaseUrl], env);
    children.push(raw);
    raw.proc.send({ type: 'routes', keyHash: hashKey(ws.apiKey), routes: recordings } satisfies ReadParentMessage);
    const results = new Map<string, { api: Load[]; raw: Load[] }>(
      routes.map(([label]) => [label, { api: [], raw: [] }]),
    );
    const load = (): string =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    const loadAtStart = load();
    for (let round = 1; round <= ROUNDS; round++) {
      log(
        `round ${round}/${ROUNDS}: ${routes.length} routes × 2 sides, ${CONNECTIONS} connections, ${DURATION_S} s each…`,
      );
      for (const [label, url] of routes) {
        results.get(label)!.api.push(await measure(api, 'api', url, ws.apiKey, `api-${label}-${round}`));
        results.get(label)!.raw.push(await measure(raw, 'raw', url, ws.apiKey, `raw-${label}-${round}`));
      }
    }
    const row = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(16) : c.padStart(11))).join('');
    out.push(row(['route', 'API rps', 'raw rps', 'ratio', 'API p50', 'API p99', 'raw p99', 'API µs', 'raw µs']));
    let min = { label: '', ratio: Infinity };
    let maxP99 = 0;
    for (const [label] of routes) {
      const r = results.get(label)!;
      const pick = (side: Load[], key: keyof Load) => median(side.map((l) => l[key]));
      const ratio = pick(r.api, 'rps') / pick(r.raw, 'rps');
      if (ratio < min.ratio) min = { label, ratio };
      maxP99 = Math.max(maxP99, pick(r.api, 'p99'));
      out.push(
        row([
          label,
          pick(r.api, 'rps').toFixed(0),
          pick(r.raw, 'rps').toFixed(0),
          ratio.toFixed(2),
          pick(r.api, 'p50').toFixed(0),
          pick(r.api, 'p99').toFixed(0),
          pick(r.raw, 'p99').toFixed(0),
          pick(r.api, 'cpuUs').toFixed(0),
          pick(r.raw, 'cpuUs').toFixed(0),
        ]),
      );
    }
    const met = min.ratio >= TARGET_RATIO && maxP99 <= TARGET_P99_MS;
    out.push(
      `load average ${loadAtStart} at the start, ${load()} at the end`,
      `median of ${ROUNDS} rounds; µs = server CPU per request; targets: every ratio ≥ ${TARGET_RATIO}, p99 ≤ ${TARGET_P99_MS} ms: ${met ? 'met' : 'NOT met'}`,
      `RESULT min_ratio=${min.ratio.toFixed(2)} min_route=${min.label.replace(/ /g, '_')} max_p99_ms=${maxP99} routes=${routes.length}`,
    );
  } finally {
    await Promise.all(children.map(stop));
    await stack?.stop();
  }
  return out;
}

finishBench(main);
