/**
 * Worker crash mid-action: a child-process worker is SIGKILLed while an http_request action waits
 * on a slow local server; a new worker picks the attempt up after the heartbeat timeout (seconds),
 * not after the 2-minute start-to-close timeout.
 */
import type { ChildProcess } from 'node:child_process';
import type { Tenant } from '../support/app';
import {
  action,
  chainGraph,
  createAutomation,
  startEngineHarness,
  waitFor,
  type EngineHarness,
} from '../support/automation-engine';
import { startWorkerProcess } from '../support/worker-process';
import { json, startHttp, type LocalHttp } from '../unit/messaging/local-http';

let h: EngineHarness;
let t: Tenant;
let server: LocalHttp;
let child: ChildProcess | null = null;
const hits: { at: number; key: string | undefined }[] = [];

beforeAll(async () => {
  h = await startEngineHarness();
  // Bundle the workflows once now, so the restart below is a worker start, not a bundle build.
  await h.startWorker();
  await h.stopWorker();
  t = await h.app.tenant('Worker crash');
  // First call hangs (the worker is killed meanwhile); later calls answer at once.
  server = await startHttp();
  server.respond((req, res) => {
    hits.push({ at: Date.now(), key: req.headers['idempotency-key'] as string | undefined });
    if (hits.length > 1) json(200, { ok: true })(req, res);
  });
}, 120_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await server?.close();
  await h?.close();
});

const startChildWorker = (): Promise<ChildProcess> =>
  startWorkerProcess({
    TEMPORAL_TASK_QUEUE: h.taskQueue,
    // Its run starter starts this test's queued runs only (the database is shared).
    STARTER_WORKSPACE_IDS: t.workspaceId,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    DATABASE_URL: h.app.config.databaseUrl,
  });

describe('a worker killed -9 in the middle of an action', () => {
  it('the action is retried on a restarted worker within seconds and the run completes', async () => {
    child = await startChildWorker();
    const url = `${server.url}/hook`;
    const automationId = await createAutomation(
      t.http,
      chainGraph({ triggerType: 'lead_created' }, [
        action('http_request', { method: 'POST', url, body: { hello: 'world' } }),
        action('create_note', { noteContent: 'after the call' }),
      ]),
    );
    const lead = (await t.http.post('/api/v1/leads', { title: 'Crash' })).body.data;
    const res = await t.http.post(`/api/v1/automations/${automationId}/trigger`, {
      entityType: 'lead',
      entityId: lead._id,
    });
    expect(res.status).toBe(202);
    const executionId = res.body.data.executionId as string;

    await waitFor(async () => hits.length === 1, 30_000, 'the action to call the slow server');
    const dead = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await dead;
    child = null;

    await h.startWorker();
    const restartedAt = Date.now();
    const done = await h.waitForExecution(executionId, ['completed', 'failed'], 30_000);
    const finishedAfter = Date.now() - restartedAt;
    expect(done.status).toBe('completed');
    // Without heartbeats the attempt would only time out after 2 minutes.
    expect(hits).toHaveLength(2);
    expect(hits[1]!.at - restartedAt).toBeLessThan(15_000);
    expect(finishedAfter).toBeLessThan(15_000);
    // Same idempotency key on both attempts: the receiver can tell it is a retry.
    expect(hits[1]!.key).toBeDefined();
    expect(hits[1]!.key).toBe(hits[0]!.key);
    const steps = await h.stepsOf(executionId);
    expect(steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['trigger', 'completed'],
      ['n1', 'completed'],
      ['n2', 'completed'],
    ]);
  }, 120_000);
});
