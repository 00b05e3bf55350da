// The worker process's Temporal side (bin/worker.ts): the connection, a Worker on one task queue, several as one
// handle, and the workflow bundle. Also used by the test worker child and the e-mail bench.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { DefaultLogger, LogEntry, NativeConnection } from '@temporalio/worker';
import { crmDataConverter } from '../platform/temporal/codec';
import { WORKFLOW_KINDS } from '../app/modules';
import type { AppConfig } from '../platform/config';
import type { Logger } from '../platform/logger';
import { workflowBundlerOptions, WORKFLOWS_PATH } from '../platform/temporal/bundle-options';
import { cachedWorkflowBundle, defaultBundleCacheDir } from '../platform/temporal/bundle-cache';

export interface TemporalWorkerHandle {
  workflows: string[];
  /** Settles when the worker stops; rejects when it fails fatally. */
  running: Promise<void>;
  shutdown(): Promise<void>;
}

/** Names exported by the workflows entry point: Worker.create refuses a bundle without any. */
export function registeredWorkflows(workflowsPath: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return Object.keys(require(workflowsPath) as Record<string, unknown>).filter((name) => name !== '__esModule');
}

function temporalLogger(DefaultLoggerClass: typeof DefaultLogger, log: Logger): DefaultLogger {
  return new DefaultLoggerClass('INFO', (entry: LogEntry) => {
    const level =
      entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
    log[level]({ ...entry.meta }, entry.message);
  });
}

/**
 * The process's one connection to Temporal (the native bridge), shared by the Worker and by the
 * client the outbox subscribers start runs with, so that starts can be eager: the server hands a
 * new run's first workflow task straight back to this worker instead of queueing it.
 */
export async function connectTemporal(config: AppConfig, log: Logger): Promise<NativeConnection> {
  // Loaded only when needed: the native bridge takes seconds to load.
  const { DefaultLogger, NativeConnection, Runtime } = await import('@temporalio/worker');
  // This process owns SIGINT/SIGTERM: shutdown order is dispatcher, Temporal worker, then the ORM.
  Runtime.install({ logger: temporalLogger(DefaultLogger, log), shutdownSignals: [] });
  return NativeConnection.connect({ address: config.temporalAddress });
}

/** Starts the Temporal worker on the given connection (closed when the worker stops). */
export async function startTemporalWorker(opts: {
  config: AppConfig;
  connection: NativeConnection;
  activities: object;
  workflowsPath: string;
  /** The task queue to poll (default config.temporalTaskQueue; the backlog worker polls the backlog queue). */
  taskQueue?: string;
  /** Whether the connection is closed when this worker stops (default true; false when another worker shares it). */
  closeConnection?: boolean;
  /**
   * A prebuilt bundle of `workflowsPath` (bin/bundle-workflows.ts): the worker then never loads webpack,
   * nor the workflow modules in this context (the names it logs are the registry's, domain/workflow-kinds.ts).
   */
  workflowBundlePath?: string;
  log: Logger;
  /** Start-up marks logged with "Temporal worker started" (called once the worker polls). */
  startup?: () => Record<string, number>;
}): Promise<TemporalWorkerHandle> {
  const workflows = opts.workflowBundlePath
    ? WORKFLOW_KINDS.map((k) => k.workflowType)
    : registeredWorkflows(opts.workflowsPath);
  const { Worker } = await import('@temporalio/worker');
  const { connection } = opts;
  const taskQueue = opts.taskQueue ?? opts.config.temporalTaskQueue;
  const worker = await Worker.create({
    connection,
    namespace: opts.config.temporalNamespace,
    taskQueue,
    ...(opts.workflowBundlePath
      ? { workflowBundle: { codePath: opts.workflowBundlePath } }
      : { workflowsPath: opts.workflowsPath, bundlerOptions: workflowBundlerOptions() }),
    activities: opts.activities,
    // Payload encryption (TEMPORAL_PAYLOAD_KEYS); codecs run outside the workflow sandbox, so the bundle needs nothing.
    dataConverter: crmDataConverter(opts.config.temporalCodec.payloadKeys),
    // Parked enrollments and delayed runs are evicted and replayed on their next task instead of staying in memory.
    maxCachedWorkflows: opts.config.temporalMaxCachedWorkflows,
    // A killed worker's cached runs go to another worker after this, not after the SDK's 10 s (config.ts).
    stickyQueueScheduleToStartTimeout: opts.config.temporalStickyTimeoutMs,
    maxConcurrentActivityTaskExecutions: opts.config.temporalMaxConcurrentActivities,
    maxConcurrentLocalActivityExecutions: opts.config.temporalMaxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: opts.config.temporalMaxConcurrentWorkflowTasks,
  });
  const running = worker
    .run()
    .finally(() => (opts.closeConnection === false ? undefined : connection.close().catch(() => undefined)));
  opts.log.info(
    {
      taskQueue,
      namespace: opts.config.temporalNamespace,
      workflows,
      ...(opts.startup ? { startup: opts.startup() } : {}),
    },
    'Temporal worker started',
  );
  return {
    workflows,
    running,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
    },
  };
}

/**
 * The workflow bundle: TEMPORAL_WORKFLOW_BUNDLE when set, else the cached bundle of the current
 * code (temporal/bundle-cache.ts), built on a miss by bin/bundle-workflows.ts in a child process
 * (same node flags as this one, e.g. tsx). Bundling in this process would keep webpack's memory in
 * the worker for good (~120 MB of RSS, README "Worker memory").
 */
export async function workflowBundle(log: Logger): Promise<{ codePath: string; hit: boolean }> {
  const given = process.env.TEMPORAL_WORKFLOW_BUNDLE?.trim();
  if (given) {
    if (!existsSync(given))
      throw new Error(
        `TEMPORAL_WORKFLOW_BUNDLE=${given} does not exist (build it with: node --import tsx bin/bundle-workflows.ts ${given})`,
      );
    return { codePath: given, hit: true };
  }
  const started = Date.now();
  const bundle = await cachedWorkflowBundle({
    entry: WORKFLOWS_PATH,
    options: workflowBundlerOptions(),
    cacheDir: defaultBundleCacheDir(),
    build: (out) =>
      new Promise<void>((resolve, reject) => {
        // tsx as in this process, or added when this process runs the precompiled entry (infra/worker-build.ts).
        const tsx = process.execArgv.some((a) => a.includes('tsx')) ? [] : ['--import', 'tsx'];
        const script = path.join(__dirname, 'bundle-workflows.ts');
        const child = spawn(process.execPath, [...process.execArgv, ...tsx, script, out], {
          cwd: path.join(__dirname, '..'),
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        child.once('error', reject);
        child.once('exit', (code, signal) =>
          code === 0 ? resolve() : reject(new Error(`bin/bundle-workflows.ts exited with ${code ?? signal}`)),
        );
      }),
  });
  log.info({ ms: Date.now() - started, cached: bundle.hit, key: bundle.key }, 'workflow bundle ready');
  return bundle;
}

/** Several Temporal workers (one per task queue) as one handle. */
export function allWorkers(handles: TemporalWorkerHandle[]): TemporalWorkerHandle {
  return {
    workflows: handles[0]?.workflows ?? [],
    running: Promise.all(handles.map((h) => h.running)).then(() => undefined),
    async shutdown() {
      await Promise.all(handles.map((h) => h.shutdown()));
    },
  };
}
