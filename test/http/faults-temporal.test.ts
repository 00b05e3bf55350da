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
import { createRunStarter } from '../../modules/automations/engine/starter';
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

async function manualAutomation(): Promise<string> {
  const created = await t.http.post('/api/v1/automations', {
    name: 'Manual',
    nodes: [
      { id: 'trigger', type: 'trigger', position: { x: 0, y: 0 }, data: { triggerType: 'lead_created' } },
      {
        id: 'n1',
        type: 'action',
        position: { x: 0, y: 200 },
        data: { actionType: 'create_note', config: { noteContent: 'x' } },
      },
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
    // The worker's run starter, reaching Temporal through the same proxy.
    const starter = createRunStarter(
      {
        orm,
        log: createLogger('silent', 'faults-temporal'),
        workflows: createWorkflowPort(app.runtime.deps.temporal, taskQueue),
      },
      { workspaceIds: () => [t.workspaceId], pollMs: 200 },
    );
    await proxy.down();
    await starter.start();
    let executionId: string;
    try {
      const started = Date.now();
      const res = await t.http.post(`/api/v1/automations/${automationId}/trigger`, {});
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(202);
      expect(res.body.data.status).toBe('queued');
      executionId = res.body.data.executionId as string;
      await new Promise((r) => setTimeout(r, 1500));
      const shown = await t.http.get(`/api/v1/automations/executions/${executionId}`);
      expect(shown.body.data).toMatchObject({ status: 'queued', error: null });
    } finally {
      await proxy.up();
    }
    const rowStatus = async () =>
      (await forkForWorkspace(orm.em, t.workspaceId).findOne(AutomationExecution, { _id: executionId }))?.status;
    await waitFor(async () => (await rowStatus()) === 'running', 20_000, 'the queued run to start');
    await starter.stop();
    const rows = await forkForWorkspace(orm.em, t.workspaceId).find(AutomationExecution, { automationId });
    expect(rows).toHaveLength(1);
    // Cancelling it while the engine is down: 503 within the deadline, nothing recorded, the run still running.
    await proxy.down();
    try {
      const started = Date.now();
      const res = await t.http.post(`/api/v1/automations/executions/${executionId!}/cancel`, {});
      expect(Date.now() - started).toBeLessThan(6000);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'unavailable', details: { recorded: false } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await rowStatus()).toBe('running');
    } finally {
      await proxy.up();
    }
    const client = createTemporalClient(
      await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      app.config,
    );
    try {
      const handle = client.workflow.getHandle(rows[0]!.workflowId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      // No worker polls this queue: remove the run from the shared dev server.
      await handle.terminate('test cleanup');
    } finally {
      await client.connection.close();
    }
  }, 60_000);
});

describe('POST /contracts/:id/send while Temporal is down', () => {
  it('answers 200 at once with one contract_sent; the envelope starts once, when the engine is back', async () => {
    const { id } = await createContract(t.http);
    const orm = app.runtime.deps.orm;
    const log = createLogger('silent', 'faults-temporal');
    const workflows = createWorkflowPort(app.runtime.deps.temporal, taskQueue);
    const starter = createRunStarter(
      { orm, log, workflows },
      { workspaceIds: () => [t.workspaceId], pollMs: 200, queues: [contractStartQueue({ orm, log, workflows })] },
    );
    const row = () => forkForWorkspace(orm.em, t.workspaceId).findOne(Contract, { _id: id });
    await proxy.down();
    await starter.start();
    try {
      const started = Date.now();
      const res = await t.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'sent', lastError: null });
      await new Promise((r) => setTimeout(r, 1500));
      expect(await row()).toMatchObject({ status: 'sent', startQueued: true });
    } finally {
      await proxy.up();
    }
    await waitFor(async () => (await row())?.startQueued === false, 30_000, 'the queued envelope to start');
    await starter.stop();
    const sentEvents = await forkForWorkspace(orm.em, t.workspaceId).count(OutboxEvent, {
      type: 'contract_sent',
      entityId: id,
    });
    expect(sentEvents).toBe(1);
    const client = createTemporalClient(
      await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      app.config,
    );
    try {
      const handle = client.workflow.getHandle((await row())!.workflowId!);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test cleanup');
    } finally {
      await client.connection.close();
    }
  }, 60_000);
});

describe('calls that wait on a workflow while Temporal is down answer within the engine deadline', () => {
  const terminate = async (workflowId: string) => {
    const client = createTemporalClient(
      await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      app.config,
    );
    try {
      await client.workflow
        .getHandle(workflowId)
        .terminate('test cleanup')
        .catch(() => undefined);
    } finally {
      await client.connection.close();
    }
  };

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
      await proxy.down();
      try {
        const started = Date.now();
        const res = await t.http.post(`/api/v1/bookings/${id}/approve`, {}, key);
        expect(Date.now() - started).toBeLessThan(6000);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ code: 'unavailable', details: { recorded: false } });
        expect(res.body.error).toContain('not recorded');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await proxy.up();
      }
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
      await proxy.down();
      try {
        const started = Date.now();
        const res = await t.http.post(`/api/v1/contracts/${id}/void`, { reason: 'Wrong terms' });
        expect(Date.now() - started).toBeLessThan(5000);
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ status: 'voided', voidReason: 'Wrong terms' });
      } finally {
        await proxy.up();
      }
    } finally {
      await terminate(sent.body.data.workflowId);
    }
  }, 60_000);
});
