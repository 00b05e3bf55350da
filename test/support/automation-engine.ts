/**
 * Automation engine tests: the real app, an in-process Temporal Worker on a task queue of this
 * test file only (the dev server at TEMPORAL_ADDRESS is shared), and an outbox dispatcher that
 * only claims the test's workspaces.
 */
import { Connection, type Client } from '@temporalio/client';
import {
  NativeConnection,
  Runtime,
  Worker,
  bundleWorkflowCode,
  DefaultLogger,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities } from '../../app/activities';
import { createTemporalClient } from '../../platform/temporal/client';
import { crmDataConverter } from '../../platform/temporal/codec';
import { createWorkflowPort } from '../../platform/temporal/workflow-client';
import { createSequenceWorkflowPort } from '../../modules/sequences';
import { AutomationExecution, AutomationStep } from '../../modules/automations/automation.entity';
import type { EngineDeps, WorkflowPort } from '../../modules/automations/engine/ports';
import { startExecution } from '../../modules/automations/engine/start';
import { newId } from '../../platform/ids';
import { createLogger } from '../../platform/logger';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../platform/outbox/dispatcher';
import { createRunStarter, type RunStarter } from '../../modules/automations/engine/starter';
import { inFlightLimit } from '../../modules/automations/engine/in-flight';
import { queuedRuns } from '../../platform/intake/queue-signal';
import { enrollmentStartQueue } from '../../modules/sequences/start-queue';
import { contractStartQueue } from '../../modules/contracts/start-queue';
import { buildSubscribers } from '../../app/subscribers';
import { startTestApp, type HttpClient, type HttpResult, type TestApp } from './app';
import { definitionCreator } from './definitions';
import { createSearchIndexSubscriber } from '../../search/index-subscriber';
import { WORKFLOWS_PATH } from '../../platform/temporal/bundle-options';

let runtimeInstalled = false;

export interface EngineHarness {
  app: TestApp;
  taskQueue: string;
  client: Client;
  workflows: WorkflowPort;
  engine: EngineDeps;
  /**
   * Starts (another) in-process worker; `retryIntervalMs` shortens retryIntervalMinutes for runs its activities start.
   */
  startWorker(opts?: { taskQueue?: string }): Promise<Worker>;
  stopWorker(worker?: Worker): Promise<void>;
  /** Replaces the messaging deps the worker's activities send with (tests that interpose on the transport). */
  messaging?: import('../../modules/email/messaging-deps').MessagingDeps;
  /** A dispatcher with the app's subscribers (automations included) for these workspaces. */
  dispatcher(workspaceIds: string[]): OutboxDispatcher;
  /** The execution row (any workspace) once it has one of `statuses` (by default: finished). */
  waitForExecution(executionId: string, statuses?: string[], timeoutMs?: number): Promise<AutomationExecution>;
  /**
   * Expects `res`, the answer of a route that starts a run (trigger, test, retry), to be 202 and resolves to
   * that run once it has one of `statuses` (by default: finished).
   */
  acceptedRun(res: HttpResult, statuses?: string[], timeoutMs?: number): Promise<AutomationExecution>;
  /** POSTs `body` to the automation's trigger route as `http`'s tenant, then `acceptedRun` (finished). */
  triggerRun(
    http: HttpClient,
    automationId: string,
    body?: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<AutomationExecution>;
  /** The steps of a run (any workspace), in the order they started. */
  stepsOf(executionId: string): Promise<AutomationStep[]>;
  /** The runs of an automation (any workspace), in the order they started. */
  executionsOf(automationId: string): Promise<AutomationExecution[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /**
   * The port sends the queued runs of a workspace with a backlog to the backlog lane (TEMPORAL_BACKLOG_TASK_QUEUE),
   * as the `main` worker process does; `startWorker({ taskQueue })` starts a worker on that queue.
   */
  backlogLane?: boolean;
}

export async function startEngineHarness(
  env: Record<string, string> = {},
  options: HarnessOptions = {},
): Promise<EngineHarness> {
  const taskQueue = `test-${newId()}`;
  const app = await startTestApp({
    TEMPORAL_TASK_QUEUE: taskQueue,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost',
    ...env,
  });
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'engine-test');
  if (!runtimeInstalled) {
    try {
      // Failed runs are expected in these tests: only errors are worth printing.
      Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
    } catch {
      // already installed by an earlier test file in this jest worker
    }
    runtimeInstalled = true;
  }
  const client = createTemporalClient(await Connection.connect({ address: app.config.temporalAddress }), app.config);
  const workflows = createWorkflowPort(
    client,
    taskQueue,
    options.backlogLane ? { backlogTaskQueue: app.config.temporalBacklogTaskQueue } : {},
  );
  // With AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE given, as in the worker process: the subscriber caps each workspace's
  // runs in flight and queues the rest, the harness worker's starter starts them into the room (in-flight.ts).
  const capped = 'AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE' in env;
  const engine: EngineDeps = {
    orm: app.runtime.deps.orm,
    log,
    workflows,
    ...(capped ? { inFlight: inFlightLimit(app.config) } : {}),
  };
  let bundle: WorkflowBundleWithSourceMap | null = null;
  const workers = new Set<{
    worker: Worker;
    running: Promise<void>;
    connection: NativeConnection;
    starter?: RunStarter;
  }>();
  // The starter of a harness worker claims only the runs this test file's app queued (the database is shared).
  const queuedIn = new Set<string>();
  const track = (workspaceId: string): void => void queuedIn.add(workspaceId);
  queuedRuns.on('queued', track);
  const dispatchers: OutboxDispatcher[] = [];

  const harness: EngineHarness = {
    app,
    taskQueue,
    client,
    workflows,
    engine,
    waitForExecution: (executionId, statuses, timeoutMs) => waitForExecution(app, executionId, statuses, timeoutMs),
    acceptedRun: (res, statuses, timeoutMs) => acceptedRun(app, res, statuses, timeoutMs),
    triggerRun: async (http, automationId, body = {}, timeoutMs) =>
      acceptedRun(app, await http.post(`/api/v1/automations/${automationId}/trigger`, body), undefined, timeoutMs),
    stepsOf: (executionId) => stepsOf(app, executionId),
    executionsOf: (automationId) => executionsOf(app, automationId),
    async startWorker(opts = {}) {
      bundle ??= await bundleWorkflowCode({
        workflowsPath: WORKFLOWS_PATH,
        logger: new DefaultLogger('WARN'),
      });
      const connection = await NativeConnection.connect({ address: app.config.temporalAddress });
      const worker = await Worker.create({
        connection,
        namespace: app.config.temporalNamespace,
        taskQueue: opts.taskQueue ?? taskQueue,
        workflowBundle: bundle,
        activities: createActivities({
          orm: app.runtime.deps.orm,
          config: app.config,
          log,
          workflows,
          retryIntervalMs: env.RETRY_INTERVAL_MS ? Number(env.RETRY_INTERVAL_MS) : undefined,
          staleClaimMs: env.STALE_CLAIM_MS ? Number(env.STALE_CLAIM_MS) : undefined,
          messaging: harness.messaging,
          sequenceWorkflows: createSequenceWorkflowPort(client, taskQueue),
        }),
        shutdownGraceTime: '1 second',
        dataConverter: crmDataConverter(app.config.temporalCodec.payloadKeys),
      });
      if (opts.taskQueue && opts.taskQueue !== taskQueue) {
        // A backlog worker (WORKER_ROLE=backlog): it polls its queue and runs nothing else.
        workers.add({ worker, connection, running: worker.run() });
        return worker;
      }
      // As in the worker process: the starter of queued API runs lives with the worker.
      const starter = createRunStarter(engine, {
        workspaceIds: () => [...queuedIn],
        pollMs: 200,
        queues: [
          enrollmentStartQueue({
            orm: app.runtime.deps.orm,
            log,
            workflows: createSequenceWorkflowPort(client, taskQueue),
            waitScale: app.config.sequenceWaitScale,
            stepTimeoutMs: app.config.sequenceStepTimeoutMs,
          }),
          contractStartQueue({ orm: app.runtime.deps.orm, log, workflows }),
        ],
      });
      const entry = { worker, connection, running: worker.run(), starter };
      workers.add(entry);
      await starter.start();
      return worker;
    },
    async stopWorker(worker) {
      for (const entry of [...workers]) {
        if (worker && entry.worker !== worker) continue;
        await entry.starter?.stop();
        if (entry.worker.getState() === 'RUNNING') entry.worker.shutdown();
        await entry.running.catch(() => undefined);
        await entry.connection.close().catch(() => undefined);
        workers.delete(entry);
      }
    },
    dispatcher(workspaceIds) {
      const d = createOutboxDispatcher({
        pgConnectionString: app.config.databaseUrl,
        workspaceIds,
        log,
        pollIntervalMs: 100,
        backoff: () => 50,
        subscribers: buildSubscribers(
          {
            orm: app.runtime.deps.orm,
            config: app.config,
            log,
            workflows,
            sequenceWorkflows: createSequenceWorkflowPort(client, taskQueue),
            searchIndex: createSearchIndexSubscriber,
            runStarter: capped,
          },
          { without: ['webhooks'] },
        ),
      });
      dispatchers.push(d);
      return d;
    },
    async close() {
      queuedRuns.off('queued', track);
      await Promise.all(dispatchers.map((d) => d.stop()));
      // Let runs finish their last workflow task (a row can be final before its workflow is), then
      // terminate what is left (long delays), so nothing lingers on the shared dev server.
      const running = async () => {
        const ids: { workflowId: string; runId: string }[] = [];
        for await (const wf of client.workflow.list({
          query: `(TaskQueue = '${taskQueue}' OR TaskQueue = '${app.config.temporalBacklogTaskQueue || taskQueue}') AND ExecutionStatus = 'Running'`,
        }))
          ids.push(wf);
        return ids;
      };
      const deadline = Date.now() + 5000;
      let left = await running().catch(() => []);
      while (left.length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        left = await running().catch(() => []);
      }
      await harness.stopWorker();
      await Promise.all(
        left.map((wf) =>
          client.workflow
            .getHandle(wf.workflowId, wf.runId)
            .terminate('test cleanup')
            .catch(() => undefined),
        ),
      );
      // Schedules a failed test left behind would start ticks on this queue forever.
      for await (const sched of client.schedule.list()) {
        if (!sched.scheduleId.startsWith('automation-schedule:')) continue;
        const handle = client.schedule.getHandle(sched.scheduleId);
        const d = await handle.describe().catch(() => null);
        if (d?.action.type === 'startWorkflow' && d.action.taskQueue === taskQueue)
          await handle.delete().catch(() => undefined);
      }
      await client.connection.close().catch(() => undefined);
      await app.close();
    },
  };
  return harness;
}

/**
 * Starts a lead_created run of the automation for `lead` straight through `engine` (the harness's, or one
 * with other settings), with a fresh trigger key, as the outbox would; throws if the start is skipped.
 * Resolves to the new execution's id.
 */
export async function startLeadRun(
  engine: EngineDeps,
  workspaceId: string,
  automationId: string,
  lead: { _id: string; title: string },
): Promise<string> {
  const res = await startExecution(engine, {
    workspaceId,
    automationId,
    triggerType: 'lead_created',
    triggerKey: `t-${newId()}`,
    entityType: 'lead',
    entityId: lead._id,
    context: { lead: { _id: lead._id, title: lead.title }, system: { entityType: 'lead', entityId: lead._id } },
  });
  if (res.status === 'skipped') throw new Error(res.reason);
  return res.execution._id;
}

/** Creates an automation through the definitions API and activates it (unless active: false). */
export const createAutomation = definitionCreator(
  '/api/v1/automations',
  'automation',
  () => `Automation ${newId().slice(-6)}`,
);

/**
 * trigger → the given nodes in a chain (ids n1, n2, …), e.g. chain('lead_created', [actionNode('create_note', {...})]).
 */
export function chainGraph(
  trigger: { triggerType: string; config?: Record<string, unknown> },
  nodes: { type: string; data: Record<string, unknown>; id?: string }[],
) {
  const all = [
    { id: 'trigger', type: 'trigger', data: trigger },
    ...nodes.map((n, i) => ({ id: n.id ?? `n${i + 1}`, type: n.type, data: n.data })),
  ];
  return {
    nodes: all.map((n, i) => ({ ...n, position: { x: 500, y: i * 200 } })),
    edges: all.slice(1).map((n, i) => ({ id: `e${i + 1}`, source: all[i]!.id, target: n.id, sourceHandle: null })),
  };
}

export const action = (actionType: string, config: Record<string, unknown>, id?: string) => ({
  id,
  type: 'action',
  data: { actionType, config },
});

/** An automation of a lead_created trigger and one create_note step writing `noteContent`; resolves to its id. */
export const createNoteAutomation = (http: HttpClient, noteContent: string, opts: { active?: boolean } = {}) =>
  createAutomation(http, chainGraph({ triggerType: 'lead_created' }, [action('create_note', { noteContent })]), opts);

export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitForExecution(
  app: TestApp,
  executionId: string,
  statuses: string[] = ['completed', 'failed', 'cancelled'],
  timeoutMs = 15_000,
): Promise<AutomationExecution> {
  return waitFor(
    async () => {
      const e = await app.runtime.deps.orm.em
        .fork()
        .findOne(AutomationExecution, { _id: executionId }, { filters: false });
      return e && statuses.includes(e.status) ? e : null;
    },
    timeoutMs,
    `execution ${executionId} to be ${statuses.join('/')}`,
  );
}

async function acceptedRun(
  app: TestApp,
  res: HttpResult,
  statuses?: string[],
  timeoutMs?: number,
): Promise<AutomationExecution> {
  // The body goes into the failure message: a refused start says why.
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 202 });
  return waitForExecution(app, res.body.data.executionId as string, statuses, timeoutMs);
}

async function stepsOf(app: TestApp, executionId: string): Promise<AutomationStep[]> {
  return app.runtime.deps.orm.em
    .fork()
    .find(AutomationStep, { executionId }, { filters: false, orderBy: { startedAt: 'asc', _id: 'asc' } });
}

async function executionsOf(app: TestApp, automationId: string): Promise<AutomationExecution[]> {
  return app.runtime.deps.orm.em
    .fork()
    .find(AutomationExecution, { automationId }, { filters: false, orderBy: { startedAt: 'asc', _id: 'asc' } });
}

export async function workspaceIdOf(http: HttpClient): Promise<string> {
  return (await http.get('/api/v1/whoami')).body.data.workspace._id as string;
}
