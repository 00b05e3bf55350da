import fs from 'node:fs';
import path from 'node:path';
import { formatSeconds } from './log';
import { assertPortFree } from './ports';
import { spawnManaged, tailFile } from './process';
import { CRM_SEARCH_ATTRIBUTES, searchAttributeCliArgs } from './search-attributes';
import { throwIfAborted, type LaunchContext, type RunningService } from './service';
import { ensureTemporalCli } from './temporal-cli';
import { waitFor } from './wait';

export interface TemporalDevServerConfig {
  /** The stack's data folder; state lives in `<dataDir>/temporal.db` (SQLite). */
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  portEnvVar: string;
  uiPortEnvVar: string;
  /** CPU priority (nice, 0-19) the server runs at, every thread (`nice -n`); 0 or none: unchanged. */
  nice?: number;
  /** Codec server the Web UI decodes payloads with (`--ui-codec-endpoint`), e.g. the API's /codec/<token>. */
  codecEndpoint?: string;
}

export interface RunningTemporal extends RunningService {
  readonly address: string;
  readonly uiUrl: string;
  readonly namespace: string;
}

/**
 * Dynamic config of the single-node dev server, tuned for latency:
 * - one task queue partition: with the default four, a task written to a partition without a
 *   waiting poller is forwarded between partitions first, which adds tens of ms per task here;
 * - eager activity execution: an activity scheduled by a workflow task goes back to the worker in
 *   the answer to that task (no matching round trip) when the worker has a free slot.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string | number | boolean>> = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  'system.enableActivityEagerExecution': true,
  'system.enableEagerWorkflowStart': true,
  // Task queue fairness (server 1.29, sqlite tasks_v2): queued tasks of different fairness keys (our workspaces, see
  // temporal/workflow-client.ts fairShare) are dispatched in turns instead of first in, first out.
  'matching.enableFairness': true,
};

/** coreutils' nice(1), on every Debian machine. */
const NICE_BIN = '/usr/bin/nice';

/** Arguments of `temporal server start-dev` (exported for tests and docs). */
export function temporalDevServerArgs(config: TemporalDevServerConfig): string[] {
  const namespaces = config.namespace === 'default' ? ['default'] : ['default', config.namespace];
  return [
    'server',
    'start-dev',
    '--db-filename',
    path.join(config.dataDir, 'temporal.db'),
    // Default SQLite settings manage ~1 workflow/s; WAL + NORMAL make it usable.
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    'synchronous=NORMAL',
    '--ip',
    '127.0.0.1',
    '--port',
    String(config.port),
    '--ui-port',
    String(config.uiPort),
    ...(config.codecEndpoint ? ['--ui-codec-endpoint', config.codecEndpoint] : []),
    ...namespaces.flatMap((namespace) => ['--namespace', namespace]),
    '--log-level',
    'warn',
    ...searchAttributeCliArgs(),
    ...Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
}

/** Child env without TEMPORAL_* from our env: the CLI reads those as its own client settings. */
function temporalEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('TEMPORAL_')) env[key] = value;
  return env;
}

/** Resolves once the frontend answers and the namespace has all CRM search attributes. */
export async function waitForTemporal(
  address: string,
  namespace: string,
  options: { timeoutMs: number; abortIf?: () => string | undefined },
): Promise<void> {
  const { Connection } = await import('@temporalio/client');
  await waitFor(
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        const listed = await connection.operatorService.listSearchAttributes({ namespace });
        const custom = listed.customAttributes ?? {};
        const missing = CRM_SEARCH_ATTRIBUTES.filter((attribute) => !(attribute.name in custom));
        if (missing.length > 0)
          throw new Error(`search attributes not registered yet: ${missing.map((a) => a.name).join(', ')}`);
        return true;
      } finally {
        await connection.close();
      }
    },
    { what: `Temporal on ${address} (namespace ${namespace})`, intervalMs: 250, ...options },
  );
}

export async function startTemporalDevServer(
  ctx: LaunchContext,
  config: TemporalDevServerConfig,
): Promise<RunningTemporal> {
  const started = Date.now();
  const logFile = path.join(config.dataDir, 'logs', 'temporal.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  await assertPortFree(config.port, 'Temporal', config.portEnvVar);
  await assertPortFree(config.uiPort, 'the Temporal UI', config.uiPortEnvVar);
  const cli = await ensureTemporalCli({ log: ctx.log, signal: ctx.signal });
  throwIfAborted(ctx.signal, 'temporal');
  const cliReady = Date.now();

  // `nice` execs the server in its own process (same pid), so every thread it starts runs at that priority.
  const niced = config.nice && fs.existsSync(NICE_BIN) ? config.nice : 0;
  const child = spawnManaged({
    name: 'temporal',
    command: niced ? NICE_BIN : cli,
    args: niced ? ['-n', String(niced), cli, ...temporalDevServerArgs(config)] : temporalDevServerArgs(config),
    cwd: config.dataDir,
    env: temporalEnv(),
    logFile,
  });
  ctx.track('temporal', child, 'temporal');
  const address = `127.0.0.1:${config.port}`;
  const uiUrl = `http://127.0.0.1:${config.uiPort}`;
  const stop = async (): Promise<void> => {
    await child.stop(20_000);
  };
  const abortIf = (): string | undefined =>
    child.hasExited()
      ? `The Temporal dev server exited during start-up. Last lines of ${logFile}:\n${tailFile(logFile)}`
      : ctx.signal.aborted
        ? 'temporal: start-up cancelled'
        : undefined;
  try {
    await waitForTemporal(address, config.namespace, { timeoutMs: 90_000, abortIf });
    await waitFor(async () => ((await fetch(uiUrl, { signal: AbortSignal.timeout(1000) })).ok ? true : undefined), {
      what: `the Temporal UI on ${uiUrl}`,
      timeoutMs: 30_000,
      intervalMs: 100,
      abortIf,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const building = cliReady - started > 5_000 ? ` after ${formatSeconds(cliReady - started)} building the CLI` : '';
  ctx.log(`temporal ready on ${address}, UI ${uiUrl} (${formatSeconds(Date.now() - cliReady)}${building})`);
  return { name: 'temporal', processes: [child], address, uiUrl, namespace: config.namespace, stop };
}
