import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createWebhookRetryPort } from '../webhook-client';
import type { OutboxDispatcher } from '../../../platform/outbox/dispatcher';
import { webhookDeliveryWorkflowId } from '../ports';
import type { Tenant } from '../../../test/support/app';
import { webhookDispatcher } from '../../../test/support/webhook-dispatcher';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { startReceiver, type Receiver } from '../../../test/support/webhooks';
import { withEngine } from '../../../test/support/engine-suite';

// Retries of failing deliveries through the real retry workflow on Temporal (schedule shortened to seconds).
let h: EngineHarness;
let t: Tenant;
let receiver: Receiver;
const dispatchers: OutboxDispatcher[] = [];
const children: ChildProcess[] = [];
const ENV = { WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s', WEBHOOK_RETRY_JITTER: '0', WEBHOOK_DISABLE_AFTER: '2' };

withEngine('Webhook retries', (s) => ({ h, t } = s), { env: ENV });
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await Promise.all(dispatchers.map((d) => d.stop()));
  await receiver?.close();
});

/**
 * A running dispatcher with only the webhooks subscriber, retries on the harness's task queue; `schedule` overrides the
 * app's.
 */
async function startDispatcher(schedule?: number[]): Promise<void> {
  const config = schedule
    ? { ...h.app.config, webhooks: { ...h.app.config.webhooks, retryScheduleMs: schedule } }
    : h.app.config;
  const d = webhookDispatcher(h.app, [t.workspaceId], {
    config,
    retries: createWebhookRetryPort(h.client, h.taskQueue),
    pollIntervalMs: 100,
    backoffMs: 100,
  });
  dispatchers.push(d);
  await d.start();
}

async function subscribe(): Promise<string> {
  for (const s of (await t.http.get('/api/v1/webhooks/subscriptions?limit=100')).body.data)
    await t.http.delete(`/api/v1/webhooks/subscriptions/${s._id}`);
  const res = await t.http.post('/api/v1/webhooks/subscriptions', { url: receiver.url, events: ['company.created'] });
  expect(res.status).toBe(201);
  receiver.secrets = [res.body.data.secret];
  receiver.received.length = 0;
  return res.body.data._id;
}

const deliveriesOf = async (subId: string) =>
  (await t.http.get(`/api/v1/webhooks/subscriptions/${subId}/deliveries`)).body.data as any[];
const deliveryWhen = (subId: string, pred: (d: any) => boolean, what: string, timeoutMs = 20_000) =>
  waitFor(async () => (await deliveriesOf(subId)).find(pred), timeoutMs, what);

describe('retry workflow', () => {
  beforeAll(() => startDispatcher());

  it('retries after 500s on durable timers with the same webhook-id until a 2xx; every attempt verifies', async () => {
    const subId = await subscribe();
    receiver.respond = (n) => (n < 2 ? 500 : 200);
    await t.http.post('/api/v1/companies', { name: 'Flaky Receiver ApS' });
    const d = await deliveryWhen(subId, (x) => x.status === 'delivered', 'the delivery to succeed on the 3rd attempt');
    expect(d).toMatchObject({ attempts: 3, lastStatusCode: 200, nextAttemptAt: null });
    expect(receiver.received.map((r) => [r.answered, r.verified, r.headers['webhook-id']])).toEqual([
      [500, true, d.webhookId],
      [500, true, d.webhookId],
      [200, true, d.webhookId],
    ]);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    // Spacing follows the schedule (1 s, 1 s), each attempt newly signed.
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(900);
    expect(receiver.received[2]!.at - receiver.received[1]!.at).toBeGreaterThanOrEqual(900);
    const workflowId = webhookDeliveryWorkflowId(t.workspaceId, d._id);
    const handle = h.client.workflow.getHandle(workflowId);
    expect(await handle.result()).toBe('delivered');
    const desc = await handle.describe();
    expect(desc.typedSearchAttributes.get({ name: 'CrmWorkspaceId', type: 'KEYWORD' } as never)).toBe(t.workspaceId);
    // No secret or body in the history: ids and delays only.
    const history = JSON.stringify(await handle.fetchHistory());
    const secret = receiver.secrets[0]!;
    expect(history).not.toContain(secret.slice(6));
    expect(history).not.toContain(Buffer.from('Flaky Receiver').toString('base64'));
    expect(history).not.toContain('Flaky Receiver');
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${subId}`)).body.data).toMatchObject({
      active: true,
      failedDeliveriesInRow: 0,
    });
  }, 30_000);

  it('a delivery that fails every attempt ends failed; N such deliveries in a row disable the subscription', async () => {
    const subId = await subscribe();
    receiver.respond = () => 500;
    await t.http.post('/api/v1/companies', { name: 'Never Up 1' });
    const first = await deliveryWhen(subId, (x) => x.status === 'failed', 'the first delivery to fail every attempt');
    expect(first).toMatchObject({ attempts: 4, lastStatusCode: 500, nextAttemptAt: null });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(first.webhookId));
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${subId}`)).body.data).toMatchObject({
      active: true,
      failedDeliveriesInRow: 1,
    });
    await t.http.post('/api/v1/companies', { name: 'Never Up 2' });
    await waitFor(
      async () => (await t.http.get(`/api/v1/webhooks/subscriptions/${subId}`)).body.data.active === false,
      20_000,
      'the subscription to be disabled',
    );
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${subId}`)).body.data).toMatchObject({
      active: false,
      failedDeliveriesInRow: 2,
      disabledReason: '2 deliveries in a row failed every attempt',
    });
  }, 45_000);

  it('410 on a retry disables the subscription and ends the retries', async () => {
    const subId = await subscribe();
    receiver.respond = (n) => (n === 0 ? 502 : 410);
    await t.http.post('/api/v1/companies', { name: 'Gone Later' });
    const d = await deliveryWhen(subId, (x) => x.status === 'failed', 'the delivery to end after 410');
    expect(d).toMatchObject({ attempts: 2, lastStatusCode: 410 });
    expect(await h.client.workflow.getHandle(webhookDeliveryWorkflowId(t.workspaceId, d._id)).result()).toBe('gone');
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${subId}`)).body.data).toMatchObject({
      active: false,
      disabledReason: expect.stringContaining('410'),
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received).toHaveLength(2);
  }, 30_000);
});

describe('worker killed mid-retry', () => {
  function spawnWorker(): { child: ChildProcess; ready: Promise<void> } {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'webhook-worker-child.ts')], {
      cwd: path.join(__dirname, '../../..'),
      env: {
        ...process.env,
        ...ENV,
        DATABASE_URL: h.app.config.databaseUrl,
        TEMPORAL_ADDRESS: h.app.config.temporalAddress,
        TEMPORAL_NAMESPACE: h.app.config.temporalNamespace,
        TEMPORAL_TASK_QUEUE: h.taskQueue,
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const ready = new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (l) => l === 'ready' && resolve());
      child.once('exit', (code) => reject(new Error(`worker child exited early (${code})`)));
    });
    return { child, ready };
  }

  it('a worker SIGKILLed while a retry waits on its timer: another worker delivers it, exactly one success', async () => {
    await h.stopWorker();
    for (const d of dispatchers.splice(0)) await d.stop();
    // 1 s to the 2nd attempt, then 4 s: the kill lands in the second wait.
    await startDispatcher([1000, 4000, 1000]);
    const a = spawnWorker();
    await a.ready;
    const subId = await subscribe();
    receiver.respond = (n) => (n < 2 ? 500 : 200);
    await t.http.post('/api/v1/companies', { name: 'Crash Test AS' });
    const waiting = await deliveryWhen(
      subId,
      (x) => x.attempts === 2 && x.status === 'retrying',
      'the 2nd attempt to be recorded',
    );
    // The row is written inside the activity: kill only once its completion reached the server and
    // the workflow sleeps on its second timer (a kill before that waits out the 1-minute start-to-close).
    const handle = h.client.workflow.getHandle(webhookDeliveryWorkflowId(t.workspaceId, waiting._id));
    await waitFor(
      async () => {
        const { events } = await handle.fetchHistory();
        return (events ?? []).filter((e) => e.timerStartedEventAttributes).length >= 2 || undefined;
      },
      20_000,
      'the workflow to sleep on its second timer',
    );
    const exited = new Promise((r) => a.child.once('exit', r));
    a.child.kill('SIGKILL');
    await exited;
    const b = spawnWorker();
    await b.ready;
    const done = await deliveryWhen(subId, (x) => x.status === 'delivered', 'the new worker to deliver', 40_000);
    expect(done).toMatchObject({ _id: waiting._id, attempts: 3, lastStatusCode: 200 });
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.received.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([waiting.webhookId]));
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(await h.client.workflow.getHandle(webhookDeliveryWorkflowId(t.workspaceId, waiting._id)).result()).toBe(
      'delivered',
    );
    b.child.kill('SIGKILL');
  }, 90_000);
});
