/**
 * Temporal outage for manual starts (the API and the run starter) and for calls that wait on a workflow
 * (approve, contract void): they reach the Temporal server through a TCP proxy that the test takes down
 * and brings back; the shared dev server keeps running.
 */
import { Connection } from '@temporalio/client';
import { createTemporalClient } from '../../platform/temporal/client';
import { AutomationExecution } from '../../modules/automations/automation.entity';
import { newId } from '../../platform/ids';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createRunStarter, type RunStarter } from '../../modules/automations/engine/starter';
import type { EngineDeps } from '../../modules/automations/engine/ports';
import type { StartQueue } from '../../platform/intake/starter';
import { Contract } from '../../modules/contracts/contract.entity';
import { contractStartQueue } from '../../modules/contracts/start-queue';
import { OutboxEvent } from '../../platform/outbox/outbox-event.entity';
import { createLogger } from '../../platform/logger';
import { createWorkflowPort } from '../../platform/temporal/workflow-client';
import { waitFor } from '../support/automation-engine';
import { startTestApp, type Tenant, type TestApp } from '../support/app';
import { book, createConfig, freshDay } from '../../modules/bookings/__tests__/support';
import { createContract } from '../../modules/contracts/__tests__/support';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { expectOk } from '../support/expect';
import { graphNode } from '../support/definitions';

let proxy: TcpProxy;
let app: TestApp;
let t: Tenant;
const taskQueue = `faults-${newId()}`;
beforeAll(async () => {
  const [host, port] = (process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233').split(':');
  proxy = await startTcpProxy({ host, port: Number(port) });
  app = await startTestApp({
    TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // Sending a contract needs mail configured; no worker runs here, so nothing is ever sent.
    SMTP_URL: 'smtp://127.0.0.1:9',
    MAIL_FROM: 'CRM <crm@example.test>',
  });
  t = await app.tenant('Temporal outage');
});
afterAll(async () => {
  await proxy.up();
  await app?.close();
  await proxy.close();
});

/** Runs `during` with Temporal out of reach (the proxy down) and brings it back after, whatever happens. */
async function whileDown<T>(during: () => Promise<T>): Promise<T> {
  await proxy.down();
  try {
    return await during();
  } finally {
    await proxy.up();
  }
}

/**
 * Removes a run from the shared dev server (no worker polls this file's queue), connecting to it directly.
 * `running`: expects the run to be RUNNING first, and a failed terminate fails the test; otherwise a run that
 * has already ended (or was never started) is fine.
 */
async function terminate(workflowId: string, running = false): Promise<void> {
  const client = createTemporalClient(await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }), app.config);
  try {
    const handle = client.workflow.getHandle(workflowId);
    if (running) {
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test cleanup');
    } else await handle.terminate('test cleanup').catch(() => undefined);
  } finally {
    await client.connection.close();
  }
}

/** The worker's run starter for this file's workspace (with `queues` beside the automation runs' queue). */
function runStarter(queues?: (deps: EngineDeps) => StartQueue[]): RunStarter {
  const deps: EngineDeps = {
    orm: app.runtime.deps.orm,
    log: createLogger('silent', 'faults-temporal'),
    // Reaching Temporal through the same proxy.
    workflows: createWorkflowPort(app.runtime.deps.temporal, taskQueue),
  };
  return createRunStarter(deps, {
    workspaceIds: () => [t.workspaceId],
    pollMs: 200,
    ...(queues ? { queues: queues(deps) } : {}),
  });
}

async function manualAutomation(): Promise<string> {
  const created = await t.http.post('/api/v1/automations', {
    name: 'Manual',
    nodes: [
      graphNode('trigger', 'trigger', [0, 0], { triggerType: 'lead_created' }),
      graphNode('n1', 'action', [0, 200], { actionType: 'create_note', config: { noteContent: 'x' } }),
    ],
    edges: [{ id: 'e1', source: 'trigger', target: 'n1', sourceHandle: null }],
  });
  expect(created.status).toBe(201);
  const id = created.body.data._id as string;
  expect((await t.http.post(`/api/v1/automations/${id}/toggle`)).status).toBe(200);
  return id;
}

describe('POST /automations/:id/trigger while Temporal is down', () => {
  it('answers 202 queued at once; the run waits as queued and starts once, when the engine is back', async () => {
    const automationId = await manualAutomation();
    const orm = app.runtime.deps.orm;
    const starter = runStarter();
    const executionId = await whileDown(async () => {
      await starter.start();
      const started = Date.now();
      const res = await t.http.post(`/api/v1/automations/${automationId}/trigger`, {});
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(202);
      expect(res.body.data.status).toBe('queued');
      const queued = res.body.data.executionId as string;
      await new Promise((r) => setTimeout(r, 1500));
      const shown = await t.http.get(`/api/v1/automations/executions/${queued}`);
      expect(shown.body.data).toMatchObject({ status: 'queued', error: null });
      return queued;
    });
    const rowStatus = async () =>
      (await forkForWorkspace(orm.em, t.workspaceId).findOne(AutomationExecution, { _id: executionId }))?.status;
    await waitFor(async () => (await rowStatus()) === 'running', 20_000, 'the queued run to start');
    await starter.stop();
    const rows = await forkForWorkspace(orm.em, t.workspaceId).find(AutomationExecution, { automationId });
    expect(rows).toHaveLength(1);
    // Cancelling it while the engine is down: 503 within the deadline, nothing recorded, the run still running.
    await whileDown(async () => {
      const started = Date.now();
      const res = await t.http.post(`/api/v1/automations/executions/${executionId}/cancel`, {});
      expect(Date.now() - started).toBeLessThan(6000);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'unavailable', details: { recorded: false } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await rowStatus()).toBe('running');
    });
    await terminate(rows[0]!.workflowId, true);
  }, 60_000);
});

describe('POST /contracts/:id/send while Temporal is down', () => {
  it('answers 200 at once with one contract_sent; the envelope starts once, when the engine is back', async () => {
    const { id } = await createContract(t.http);
    const orm = app.runtime.deps.orm;
    const starter = runStarter((deps) => [contractStartQueue(deps)]);
    const row = () => forkForWorkspace(orm.em, t.workspaceId).findOne(Contract, { _id: id });
    await whileDown(async () => {
      await starter.start();
      const started = Date.now();
      const res = await t.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null });
      expect(Date.now() - started).toBeLessThan(2000);
      expectOk(res, { status: 'sent', lastError: null });
      await new Promise((r) => setTimeout(r, 1500));
      expect(await row()).toMatchObject({ status: 'sent', startQueued: true });
    });
    await waitFor(async () => (await row())?.startQueued === false, 30_000, 'the queued envelope to start');
    await starter.stop();
    const sentEvents = await forkForWorkspace(orm.em, t.workspaceId).count(OutboxEvent, {
      type: 'contract_sent',
      entityId: id,
    });
    expect(sentEvents).toBe(1);
    await terminate((await row())!.workflowId!, true);
  }, 60_000);
});

describe('calls that wait on a workflow while Temporal is down answer within the engine deadline', () => {
  it('approve: 503 recorded false (nothing reached the engine); once it is back the same key is recorded', async () => {
    const config = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 24 });
    // After the outage of the test before, the gRPC channel reconnects with backoff: a 503 (nothing held) is retried.
    let created = await book(t.http, config._id, `${freshDay()}T09:00:00Z`);
    for (let i = 0; created.status === 503 && i < 10; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      created = await book(t.http, config._id, `${freshDay()}T09:00:00Z`);
    }
    expect(created.status).toBe(201);
    const { _id: id, approvalWorkflowId } = created.body.data as { _id: string; approvalWorkflowId: string };
    const key = { headers: { 'Idempotency-Key': `approve-${id}` } };
    try {
      await whileDown(async () => {
        const started = Date.now();
        const res = await t.http.post(`/api/v1/bookings/${id}/approve`, {}, key);
        expect(Date.now() - started).toBeLessThan(6000);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ code: 'unavailable', details: { recorded: false } });
        expect(res.body.error).toContain('not recorded');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      });
      // Temporal back, still no worker on this queue: the decision is recorded now (a signal), not lost.
      let again = await t.http.post(`/api/v1/bookings/${id}/approve`, {}, key);
      for (let i = 0; again.body?.details?.recorded !== true && i < 10; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        again = await t.http.post(`/api/v1/bookings/${id}/approve`, {}, key);
      }
      expect(again.status).toBe(503);
      expect(again.body.details).toEqual({ recorded: true });
    } finally {
      await terminate(approvalWorkflowId);
    }
  }, 60_000);

  it('contract void: recorded in the database and answered at once; the envelope signal is bounded, not retried for ~20 s', async () => {
    const { id } = await createContract(t.http);
    // Sending makes no engine call (the worker's starter starts the envelope; none runs here).
    const sent = await t.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null });
    expect(sent).toMatchObject({ status: 200 });
    try {
      await whileDown(async () => {
        const started = Date.now();
        const res = await t.http.post(`/api/v1/contracts/${id}/void`, { reason: 'Wrong terms' });
        expect(Date.now() - started).toBeLessThan(5000);
        expectOk(res, { status: 'voided', voidReason: 'Wrong terms' });
      });
    } finally {
      await terminate(sent.body.data.workflowId);
    }
  }, 60_000);
});
