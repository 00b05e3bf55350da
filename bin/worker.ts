import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MikroORM } from '@mikro-orm/postgresql';
import type { DefaultLogger, LogEntry, NativeConnection } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../app/activities';
import { createWebhookRetryPort } from '../modules/webhooks';
import { createTemporalClient } from '../platform/temporal/client';
import { crmDataConverter } from '../platform/temporal/codec';
import { createWorkflowPort } from '../platform/temporal/workflow-client';
import { WORKFLOW_KINDS } from '../app/modules';
import { reconcileSchedules } from '../modules/automations';
import { createRunStarter } from '../modules/automations';
import { inFlightLimit } from '../modules/automations';
import {
  createSequenceWorkflowPort,
  enrollmentStartQueue,
  reconcileEnrollments,
  type SequenceEngineDeps,
} from '../modules/sequences';
import { contractStartQueue } from '../modules/contracts';
import type { AppConfig } from '../platform/config';
import { workerQueues } from '../platform/temporal/worker-queues';
import { loadConfig } from '../app/config';
import { createAiProvider } from '../adapters/ai/factory';
import { createMessagingDeps, type MessagingDeps } from '../modules/email';
import { createLogger, type Logger } from '../platform/logger';
import { lowerProcessPriority } from '../platform/process-priority';
import { ormConfig } from '../app/orm';
import { WORKFLOWS_PATH, workflowBundlerOptions } from '../platform/temporal/bundle-options';
import { cachedWorkflowBundle, defaultBundleCacheDir } from '../platform/temporal/bundle-cache';
import { createOutboxDispatcher, WORKER_PARALLEL_BATCHES } from '../platform/outbox/dispatcher';
import { buildSubscribers, type Subscriber } from '../app/subscribers';
import { startHousekeeping } from '../app/housekeeping';
import { createSearchIndexSubscriber } from '../search/index-subscriber';

const SHUTDOWN_TIMEOUT_MS = 30_000;
const ENROLLMENT_RECONCILE_MS = 60_000;

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

/**
 * Start-up marks, ms since the process started (before node loaded anything): `imported` when every
 * module above is loaded, then each step until `polling`. Logged with "Temporal worker started"
 * (bench:worker-start prints them).
 */
const startup: Record<string, number> = {};
const mark = (name: string): void => void (startup[name] = Math.round(performance.now()));

/**
 * The e-mail transports and SMS gateway, once for the process. A configuration they refuse (a malformed
 * CRM_SECRETS_KEY) does not stop the worker: without them each module builds its own on first use, and the steps
 * that send fail with the configuration error.
 */
function workerMessaging(config: AppConfig, log: Logger): MessagingDeps | undefined {
  try {
    return createMessagingDeps(config);
  } catch (err) {
    log.error({ err }, 'messaging is misconfigured: e-mail and SMS steps will fail until it is fixed');
    return undefined;
  }
}

/** Closes what a failed start had opened and exits 1. */
async function abortStart(orm: MikroORM | undefined, connection: NativeConnection | undefined): Promise<never> {
  await connection?.close().catch(() => undefined);
  await orm?.close(true).catch(() => undefined);
  process.exit(1);
}

/** Several Temporal workers (one per task queue) as one handle. */
function allWorkers(handles: TemporalWorkerHandle[]): TemporalWorkerHandle {
  return {
    workflows: handles[0]?.workflows ?? [],
    running: Promise.all(handles.map((h) => h.running)).then(() => undefined),
    async shutdown() {
      await Promise.all(handles.map((h) => h.shutdown()));
    },
  };
}

async function main(): Promise<void> {
  mark('imported');
  const config = loadConfig();
  // Before the native bridge and the pools start their threads: they inherit the lower priority.
  const niced = lowerProcessPriority(config.workerNice);
  const log = createLogger(config.logLevel, 'worker');
  if (niced) log.info({ nice: config.workerNice, threads: niced }, 'worker CPU priority lowered (WORKER_NICE)');
  const temporalLog = log.child({ component: 'temporal' });
  // The steps before polling that wait on I/O run at once: the ORM (first DB connection), the native
  // bridge's connection to Temporal and the workflow bundle (cache lookup; a build on a miss).
  const [ormResult, connectionResult, bundleResult] = await Promise.allSettled([
    MikroORM.init(ormConfig(config.databaseUrl)).finally(() => mark('orm')),
    connectTemporal(config, temporalLog).finally(() => mark('connected')),
    workflowBundle(temporalLog).finally(() => mark('bundle')),
  ]);
  const orm = ormResult.status === 'fulfilled' ? ormResult.value : undefined;
  const opened = connectionResult.status === 'fulfilled' ? connectionResult.value : undefined;
  if (connectionResult.status === 'rejected') {
    log.error(
      { err: connectionResult.reason, temporalAddress: config.temporalAddress },
      'cannot reach Temporal: check TEMPORAL_ADDRESS and that the server runs',
    );
  }
  if (ormResult.status === 'rejected') log.error({ err: ormResult.reason }, 'cannot initialise the database (ORM)');
  if (bundleResult.status === 'rejected') log.error({ err: bundleResult.reason }, 'Temporal worker failed to start');
  if (!orm || !opened || bundleResult.status === 'rejected') return abortStart(orm, opened);
  const connection: NativeConnection = opened;
  // Starts and cancels workflows and schedules for the automation engine; starts are eager (see connectTemporal).
  if (!config.temporalCodec.payloadKeys)
    log.warn(
      'TEMPORAL_PAYLOAD_KEYS is not set: Temporal payloads are stored unencrypted (README "Temporal: … encrypted payloads")',
    );
  const temporalClient = createTemporalClient(connection, config);
  // The worker's composition root: each port is built once here and shared by every module's activities and
  // subscribers.
  const messaging = workerMessaging(config, log);
  const role = config.workerRole;
  const backlogQueue = config.temporalBacklogTaskQueue;
  if (role === 'backlog' && !backlogQueue) {
    log.error('WORKER_ROLE=backlog needs a backlog task queue: TEMPORAL_BACKLOG_TASK_QUEUE is off');
    return abortStart(orm, connection);
  }
  // The queues this process polls: the backlog worker only the backlog lane; `all` both (it drains the backlog queue
  // too, should runs be there from a split deployment), `main` only the main queue.
  const queues = workerQueues(config);
  // Eager starts only to a queue this process polls (the main one).
  const pollsMain = queues.includes(config.temporalTaskQueue);
  const deps: ActivityDeps = {
    orm,
    config,
    log,
    workflows: createWorkflowPort(temporalClient, config.temporalTaskQueue, {
      eagerStart: pollsMain,
      // Only a `main` worker sends backlog runs away: `all` runs everything itself.
      ...(role === 'main' ? { backlogTaskQueue: backlogQueue } : {}),
    }),
    sequenceWorkflows: createSequenceWorkflowPort(temporalClient, config.temporalTaskQueue, { eagerStart: pollsMain }),
    messaging,
    ai: createAiProvider(config),
  };

  let subscribers: Subscriber[] = [];
  try {
    if (role !== 'backlog')
      // Every ported subscriber gets its port here; a missing one is a start-up error, not a feature quietly off.
      subscribers = buildSubscribers({
        ...deps,
        // The run starter below starts what the automation subscriber queues beyond a workspace's cap in flight.
        runStarter: true,
        searchIndex: createSearchIndexSubscriber,
        webhookRetries: createWebhookRetryPort(temporalClient, config.temporalTaskQueue),
      });
  } catch (err) {
    log.error({ err }, 'outbox subscribers are incomplete: refusing to start');
    return abortStart(orm, connection);
  }

  let temporal: TemporalWorkerHandle;
  try {
    // Polling first: the outbox dispatcher, the run starter and the reconcilers start after it (the
    // dispatcher's eager starts then find this worker polling).
    const activities = createActivities(deps);
    const handles: TemporalWorkerHandle[] = [];
    for (const taskQueue of queues)
      handles.push(
        await startTemporalWorker({
          config,
          connection,
          activities,
          taskQueue,
          closeConnection: false,
          workflowsPath: WORKFLOWS_PATH,
          workflowBundlePath: bundleResult.value.codePath,
          log: temporalLog,
          startup: () => (mark('polling'), startup),
        }),
      );
    temporal = allWorkers(handles);
  } catch (err) {
    log.error({ err }, 'Temporal worker failed to start');
    return abortStart(orm, connection);
  }
  if (role === 'backlog') {
    // Polls the backlog lane only: the outbox, the starter and the housekeeping run in the main worker.
    const stop = async (reason: string, code: number): Promise<void> => {
      log.info({ reason }, 'shutting down backlog worker');
      setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS).unref();
      await temporal.shutdown();
      messaging?.close();
      await connection.close().catch(() => undefined);
      await orm.close(true).catch(() => undefined);
      process.exit(code);
    };
    process.once('SIGINT', () => void stop('SIGINT', 0));
    process.once('SIGTERM', () => void stop('SIGTERM', 0));
    temporal.running.catch((err: unknown) => {
      log.error({ err }, 'Temporal worker failed');
      void stop('temporal worker failed', 1);
    });
    log.info(
      { role, taskQueue: backlogQueue, startup: { ...startup, running: Math.round(performance.now()) } },
      'worker running',
    );
    return;
  }

  const dispatcher = createOutboxDispatcher({
    pgConnectionString: config.databaseUrl,
    subscribers,
    log: log.child({ component: 'outbox' }),
    parallelBatches: WORKER_PARALLEL_BATCHES,
  });
  const sequenceEngine: SequenceEngineDeps = {
    orm,
    log: log.child({ component: 'sequences' }),
    workflows: deps.sequenceWorkflows!,
    waitScale: config.sequenceWaitScale,
    stepTimeoutMs: config.sequenceStepTimeoutMs,
  };
  // Runs the API recorded as queued (webhooks, trigger, test), queued enrollments and sent contracts:
  // started in batches, woken by NOTIFY.
  const starter = createRunStarter(
    {
      orm,
      log,
      workflows: deps.workflows,
      inFlight: inFlightLimit(config),
    },
    {
      connectionString: config.databaseUrl,
      queues: [
        enrollmentStartQueue(sequenceEngine),
        contractStartQueue({ orm, log: log.child({ component: 'contracts' }), workflows: deps.workflows }),
      ],
    },
  );
  /** Started once the dispatcher runs (housekeeping). */
  const background: { stop(): Promise<void> }[] = [];
  let stopping = false;
  const shutdown = async (reason: string, code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'shutting down worker');
    setTimeout(() => {
      log.error('worker shutdown timed out');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    await Promise.allSettled([
      dispatcher.stop(),
      starter.stop(),
      temporal.shutdown(),
      ...background.map((b) => b.stop()),
    ]);
    messaging?.close();
    await connection.close().catch(() => undefined);
    await orm.close(true).catch(() => undefined);
    process.exit(code);
  };
  // Operators and the sequence bench: where the memory is (JS heap vs native).
  // `afterGc`: the same after a full collection, so live objects and garbage V8 has not collected yet can be told
  // apart.
  process.on('SIGUSR2', () => {
    const memory = process.memoryUsage();
    v8.setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    log.info({ memory, afterGc: process.memoryUsage() }, 'worker memory');
  });
  process.once('SIGINT', () => void shutdown('SIGINT', 0));
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0));
  temporal.running.catch((err: unknown) => {
    log.error({ err }, 'Temporal worker failed');
    void shutdown('temporal worker failed', 1);
  });

  try {
    await dispatcher.start();
    await starter.start();
  } catch (err) {
    log.error({ err }, 'outbox dispatcher or run starter failed to start');
    return shutdown('outbox start failed', 1);
  }
  if (stopping) return;
  background.push(startHousekeeping(orm, log.child({ component: 'housekeeping' })));
  // Schedules the outbox could not keep in step (Temporal data reset, schedules deleted by hand).
  reconcileSchedules({ orm, log, workflows: deps.workflows })
    .then((r) => log.info(r, 'automation schedules reconciled'))
    .catch((err: unknown) => log.warn({ err }, 'automation schedule reconcile failed; the next worker start retries'));
  // Enrollments committed without a started workflow (the enrolling process died in between).
  const reconcileTimer = setInterval(() => {
    reconcileEnrollments(sequenceEngine).catch((err: unknown) =>
      log.warn({ err }, 'sequence enrollment reconcile failed; the next round retries'),
    );
  }, ENROLLMENT_RECONCILE_MS);
  reconcileTimer.unref();
  process.once('exit', () => clearInterval(reconcileTimer));
  // IMAP receiving: each pass reads every IMAP mailbox from its last UID (passes never overlap in one worker).
  if (config.imapPollSeconds > 0) {
    let polling = false;
    const imapTimer = setInterval(() => {
      if (polling) return;
      polling = true;
      // Loaded on the first pass: imapflow is not needed to poll Temporal.
      Promise.all([import('../modules/email'), import('../adapters/imap/imap-source')])
        .then(([{ pollAllImapAccounts }, { imapflowSource }]) =>
          pollAllImapAccounts(orm.em, config.secretsKey, imapflowSource, log.child({ component: 'imap' })),
        )
        .catch((err: unknown) => log.warn({ err }, 'IMAP poll pass failed'))
        .finally(() => {
          polling = false;
        });
    }, config.imapPollSeconds * 1000);
    imapTimer.unref();
  }
  log.info({ startup: { ...startup, running: Math.round(performance.now()) } }, 'worker running');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`[worker] failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
