// `npm start`: embedded Postgres + Meilisearch + Temporal dev server (unless the env points at
// running ones), migrations, then the API and the worker. Ctrl-C stops the app first, then services.
// `npm start -- --services-only`: services and migrations only, for running api/worker by hand.
import { StackLockedError } from '../infra/lock';
import { formatSeconds, stackLog as log } from '../infra/log';
import { runMigrations, spawnNode, spawnTsScript } from '../infra/node-scripts';
import { describeExit, onStopSignals, type ManagedProcess } from '../infra/process';
import { startStack, type RunningStack } from '../infra/stack';
import { delay } from '../infra/wait';
import { workerProcessEnv } from '../infra/worker-env';
import { backlogQueueEnv } from '../platform/config';
import { buildWorkerEntry, workerNodeArgs, type WorkerBuild } from '../infra/worker-build';

const startedAt = Date.now();
const servicesOnly = process.argv.slice(2).includes('--services-only');
const startup = new AbortController();
let stack: RunningStack | undefined;
/** Settles once startStack has finished or, when cancelled, cleaned up what it had started. */
let stackStarting: Promise<unknown> = Promise.resolve();
const apps: ManagedProcess[] = [];
let shuttingDown: Promise<never> | undefined;

function shutdown(code: number, reason: string): Promise<never> {
  shuttingDown ??= (async () => {
    log(`${reason}: shutting down…`);
    startup.abort();
    // The app first (it may be finishing a request or an activity), then the services it uses.
    await Promise.allSettled(apps.map((app) => app.stop(15_000)));
    await stackStarting.catch(() => undefined);
    await stack?.stop();
    process.exit(code);
  })();
  return shuttingDown;
}

onStopSignals(
  log,
  () => Boolean(shuttingDown),
  (signal, code) => void shutdown(code, `${signal} received`),
);

/** Waits until the API answers HTTP at all (any status), so the banner comes when it is usable. */
async function waitForApi(url: string, api: ManagedProcess): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !api.hasExited()) {
    try {
      await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      return true;
    } catch {
      await delay(250);
    }
  }
  return false;
}

function banner(lines: [string, string][]): string {
  const width = Math.max(...lines.map(([label]) => label.length));
  const rule = '─'.repeat(64);
  return [
    rule,
    ' CRM workspace API is running',
    ...lines.map(([label, value]) => `   ${label.padEnd(width)}  ${value}`),
    ' Ctrl-C stops the API, the worker and the services.',
    rule,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  // The worker runs precompiled (infra/worker-build.ts); compiled while the services start.
  const workerBuild: Promise<WorkerBuild | null> = servicesOnly
    ? Promise.resolve(null)
    : buildWorkerEntry().catch((err: unknown) => {
        log(
          `could not precompile the worker (${err instanceof Error ? err.message : String(err)}): running it through tsx`,
        );
        return null;
      });
  try {
    const starting = startStack({ profile: 'dev', handleSignals: false, signal: startup.signal });
    stackStarting = starting;
    stack = await starting;
  } catch (error) {
    if (shuttingDown) return;
    if (error instanceof StackLockedError) {
      log(error.message);
      process.exit(1);
    }
    throw error;
  }
  const port = process.env.PORT?.trim() || '3000';
  const env: NodeJS.ProcessEnv = { ...process.env, ...stack.env, PORT: port };
  await runMigrations(env, log, startup.signal);
  if (shuttingDown) return;
  void stack.died.then(({ service, exit }) => shutdown(1, `${service} exited unexpectedly (${describeExit(exit)})`));

  if (servicesOnly) {
    const exports = Object.entries(stack.env).map(([key, value]) => `export ${key}='${value}'`);
    process.stdout.write(
      [
        'Services are running (Ctrl-C stops them). In another shell:',
        ...exports,
        'npm run start:api    # and/or: npm run start:worker',
        '',
      ].join('\n'),
    );
    return;
  }

  const api = spawnTsScript('api', 'bin/api.ts', env);
  // Two workers (docs/automations.md "Fair sharing between workspaces"): the main one (outbox, starter, every run a
  // workspace starts within its cap) and the backlog one, at the lowest CPU priority, for the runs a workspace queued
  // beyond its cap: one workspace's burst then waits on its own lane, not in front of the others' runs.
  const workerArgs = workerNodeArgs(await workerBuild);
  const worker = spawnNode('worker', workerArgs, workerProcessEnv({ WORKER_ROLE: 'main', ...env }));
  apps.push(api, worker);
  if (backlogQueueEnv(env))
    apps.push(
      spawnNode(
        'worker-backlog',
        workerArgs,
        workerProcessEnv({ ...env, WORKER_ROLE: 'backlog', WORKER_NICE: env.BACKLOG_WORKER_NICE ?? '19' }),
      ),
    );
  for (const app of apps) {
    void app.exited.then((exit) => {
      if (!app.isStopping()) void shutdown(1, `${app.name} exited unexpectedly (${describeExit(exit)})`);
    });
  }

  const apiUrl = `http://127.0.0.1:${port}`;
  const answering = await waitForApi(apiUrl, api);
  if (shuttingDown) return;
  if (!answering) log(`the API does not answer on ${apiUrl} yet; check its output above`);
  const { TEMPORAL_UI_URL, MEILI_URL, DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE } = stack.env;
  process.stdout.write(
    banner([
      ['API', apiUrl],
      ['Temporal UI', TEMPORAL_UI_URL ?? `(external Temporal at ${TEMPORAL_ADDRESS})`],
      ['Temporal', `${TEMPORAL_ADDRESS} (namespace ${TEMPORAL_NAMESPACE})`],
      ...(stack.env.TEMPORAL_CODEC_AUTH_TOKEN
        ? [
            ['Codec server', `${apiUrl}/codec (token in ${stack.config.dataDir}/temporal-codec-token)`] as [
              string,
              string,
            ],
          ]
        : []),
      [
        'Meilisearch',
        stack.started.includes('meilisearch')
          ? `${MEILI_URL} (key in ${stack.config.dataDir}/meili-master-key)`
          : MEILI_URL,
      ],
      // dev credentials of the embedded cluster are fine to show; an external URL's are not
      [
        'Postgres',
        stack.started.includes('postgres') ? DATABASE_URL : DATABASE_URL.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@'),
      ],
      ['Started in', formatSeconds(Date.now() - startedAt)],
    ]),
  );
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  void shutdown(1, `start failed: ${message}`);
});
