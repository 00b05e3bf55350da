/**
 * Temporal outage for manual starts: the API and the run starter reach the Temporal server through a
 * TCP proxy that the test takes down and brings back; the shared dev server keeps running.
 */
import { Connection } from '@temporalio/client';
import { createTemporalClient } from '../../temporal/client';
import { AutomationExecution } from '../../domain/automations/automation.entity';
import { newId } from '../../domain/ids';
import { forkForWorkspace } from '../../domain/orm/tenant';
import { createRunStarter } from '../../domain/automations/engine/starter';
import { createLogger } from '../../domain/logger';
import { createWorkflowPort } from '../../temporal/workflow-client';
import { waitFor } from '../support/automation-engine';
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
  }, 40_000);
});
