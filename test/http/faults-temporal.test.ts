/**
 * Temporal outage for manual starts: the API reaches the Temporal server through a TCP proxy that
 * the test takes down and brings back; the shared dev server keeps running.
 */
import { Connection } from '@temporalio/client';
import { createTemporalClient } from '../../temporal/client';
import { AutomationExecution } from '../../domain/automations/automation.entity';
import { newId } from '../../domain/ids';
import { forkForWorkspace } from '../../domain/orm/tenant';
import { startTestApp, type Tenant, type TestApp } from '../support/app';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

let proxy: TcpProxy;
let app: TestApp;
let t: Tenant;
const taskQueue = `faults-${newId()}`;
beforeAll(async () => {
  const [host, port] = (process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233').split(':');
  proxy = await startTcpProxy({ host, port: Number(port) });
  app = await startTestApp({ TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`, TEMPORAL_TASK_QUEUE: taskQueue });
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
  it('answers 503 unavailable with Retry-After within a few seconds; the execution row is failed and says why', async () => {
    const automationId = await manualAutomation();
    await proxy.down();
    let executionId: string;
    try {
      const started = Date.now();
      const res = await t.http.post(`/api/v1/automations/${automationId}/trigger`, {});
      expect(Date.now() - started).toBeLessThan(6000);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const rows = await forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId).find(AutomationExecution, {
        automationId,
      });
      expect(rows).toHaveLength(1);
      executionId = rows[0]!._id;
      expect(res.body.error).toContain(executionId);
      expect(rows[0]).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('workflow engine (Temporal) is unavailable'),
      });
      expect(rows[0]!.finishedAt).toBeInstanceOf(Date);
      // The API shows the reason too.
      const shown = await t.http.get(`/api/v1/automations/executions/${executionId}`);
      expect(shown.body.data).toMatchObject({ status: 'failed', error: expect.stringContaining('nothing ran') });
    } finally {
      await proxy.up();
    }
    // Back up: a client retrying after Retry-After gets its run (the gRPC channel reconnects with backoff).
    let ok = await t.http.post(`/api/v1/automations/${automationId}/trigger`, {});
    for (let i = 0; ok.status === 503 && i < 10; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      ok = await t.http.post(`/api/v1/automations/${automationId}/trigger`, {});
    }
    expect(ok.status).toBe(201);
    const client = createTemporalClient(
      await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
      app.config,
    );
    try {
      expect((await client.workflow.getHandle(ok.body.data.workflowId).describe()).status.name).toBe('RUNNING');
      // No worker polls this queue: remove the run from the shared dev server.
      await client.workflow.getHandle(ok.body.data.workflowId).terminate('test cleanup');
    } finally {
      await client.connection.close();
    }
  }, 40_000);
});
