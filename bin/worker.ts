import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MikroORM } from '@mikro-orm/postgresql';
import type { NativeConnection } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../app/activities';
import { createWebhookRetryPort } from '../modules/webhooks';
import { createTemporalClient } from '../platform/temporal/client';
import { createWorkflowPort } from '../platform/temporal/workflow-client';
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
import {
  allWorkers,
  connectTemporal,
  startTemporalWorker,
  workflowBundle,
  type TemporalWorkerHandle,
} from './temporal-worker';
import { ormConfig } from '../app/orm';
import { WORKFLOWS_PATH } from '../platform/temporal/bundle-options';
import { createOutboxDispatcher, WORKER_PARALLEL_BATCHES } from '../platform/outbox/dispatcher';
import { buildSubscribers, type Subscriber } from '../app/subscribers';
import { startHousekeeping } from '../app/housekeeping';
import { createSearchIndexSubscriber } from '../search/index-subscriber';

// The module's surface as before the split (tests and benches start a worker with them).
export { connectTemporal, startTemporalWorker, workflowBundle, type TemporalWorkerHandle } from './temporal-worker';

const SHUTDOWN_TIMEOUT_MS = 30_000;
const ENROLLMENT_RECONCILE_MS = 60_000;

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
