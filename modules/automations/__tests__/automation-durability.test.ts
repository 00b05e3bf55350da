import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { expectError } from '../../../test/support/expect';

const suite = engineSuite('Durability');

const notes = async (leadId: string) =>
  (
    await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(
      Note,
      { leadRef: leadId },
      { orderBy: { createdAt: 'asc' } },
    )
  ).map((n) => n.content);

async function trigger(nodes: ReturnType<typeof action>[] | { type: string; data: Record<string, unknown> }[]) {
  const automationId = await createAutomation(suite.t.http, chainGraph({ triggerType: 'lead_created' }, nodes));
  const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Durable' })).body.data;
  const res = await suite.t.http.post(`/api/v1/automations/${automationId}/trigger`, {
    entityType: 'lead',
    entityId: lead._id,
  });
  expect(res.status).toBe(202);
  return {
    executionId: res.body.data.executionId as string,
    workflowId: res.body.data.workflowId as string,
    leadId: lead._id as string,
  };
}

const delayRunning = (executionId: string) =>
  waitFor(
    async () => (await suite.h.stepsOf(executionId)).find((s) => s.nodeType === 'delay' && s.status === 'running'),
    10_000,
    'the delay to start',
  );

describe('delay', () => {
  it('waits the exact duration on a durable timer (not rounded to 5 minutes); the step log shows the wait', async () => {
    const run = await trigger([
      action('create_note', { noteContent: 'before' }),
      { type: 'delay', data: { delayMinutes: 2 / 60 } },
      action('create_note', { noteContent: 'after' }),
    ]);
    const waiting = await delayRunning(run.executionId);
    expect(waiting.input).toMatchObject({ ms: 2000 });
    expect(await notes(run.leadId)).toEqual(['before']);
    const done = await suite.h.waitForExecution(run.executionId);
    expect(done.status).toBe('completed');
    const steps = await suite.h.stepsOf(run.executionId);
    const delay = steps.find((s) => s.nodeType === 'delay')!;
    // waitedMs is the real wait (workflow time from its start to the timer's task), never under the plan.
    expect(delay).toMatchObject({ status: 'completed', output: { ms: 2000 } });
    expect((delay.output as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(2000);
    expect((delay.output as { waitedMs: number }).waitedMs).toBeLessThan(2000 + 10_000);
    expect(
      steps.find((s) => s.nodeId === 'n3')!.startedAt.getTime() - delay.startedAt.getTime(),
    ).toBeGreaterThanOrEqual(2000);
    expect(await notes(run.leadId)).toEqual(['before', 'after']);
  });
});

describe('worker restart during a delay', () => {
  it('a new worker resumes the run after the timer: each side effect exactly once', async () => {
    const run = await trigger([
      action('create_note', { noteContent: 'before' }),
      { type: 'delay', data: { delayMinutes: 3 / 60 } },
      action('create_note', { noteContent: 'after' }),
    ]);
    await delayRunning(run.executionId);
    await suite.h.stopWorker();
    // The timer fires while no worker is polling; the run waits on the server, not in memory.
    await new Promise((r) => setTimeout(r, 3500));
    expect((await suite.h.waitForExecution(run.executionId, ['running'])).status).toBe('running');
    expect(await notes(run.leadId)).toEqual(['before']);
    await suite.h.startWorker();
    const done = await suite.h.waitForExecution(run.executionId, undefined, 20_000);
    expect(done.status).toBe('completed');
    expect(await notes(run.leadId)).toEqual(['before', 'after']);
    const steps = await suite.h.stepsOf(run.executionId);
    expect(steps.map((s) => [s.nodeId, s.status, s.attempt])).toEqual([
      ['trigger', 'completed', 1],
      ['n1', 'completed', 1],
      ['n2', 'completed', 1],
      ['n3', 'completed', 1],
    ]);
    // The step reports the real wait: the planned 3 s plus the time the worker was away after it.
    const delay = steps.find((s) => s.nodeType === 'delay')!;
    expect(delay.output).toMatchObject({ ms: 3000 });
    expect((delay.output as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(3500);
  }, 45_000);
});

describe('POST /automations/executions/:executionId/cancel', () => {
  it('cancels a run waiting on a long delay: status cancelled, workflow cancelled, nothing after the delay runs', async () => {
    const run = await trigger([
      { type: 'delay', data: { amount: 7, unit: 'days' } },
      action('create_note', { noteContent: 'never' }),
    ]);
    await delayRunning(run.executionId);
    const res = await suite.t.http.post(`/api/v1/automations/executions/${run.executionId}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { cancelled: true, childrenCancelled: 0 } });
    const done = await suite.h.waitForExecution(run.executionId);
    expect(done.status).toBe('cancelled');
    await waitFor(
      async () => (await suite.h.client.workflow.getHandle(run.workflowId).describe()).status.name === 'CANCELLED',
      10_000,
      'the workflow to be cancelled',
    );
    expect(await notes(run.leadId)).toEqual([]);
    // The workflow wrote the steps it had decided on its way out.
    expect((await suite.h.stepsOf(run.executionId)).map((s) => s.nodeId)).toEqual(['trigger', 'n1']);
    expectError(
      await suite.t.http.post(`/api/v1/automations/executions/${run.executionId}/cancel`),
      409,
      'not running',
    );
  });

  it('a finished run is 409; an unknown or malformed id 404; another workspace 404', async () => {
    const run = await trigger([action('create_note', { noteContent: 'quick' })]);
    await suite.h.waitForExecution(run.executionId);
    expect((await suite.t.http.post(`/api/v1/automations/executions/${run.executionId}/cancel`)).status).toBe(409);
    expect((await suite.t.http.post('/api/v1/automations/executions/0123456789abcdef01234567/cancel')).status).toBe(
      404,
    );
    expect((await suite.t.http.post('/api/v1/automations/executions/nope/cancel')).status).toBe(404);
    const other = await suite.h.app.tenant('Other');
    expect((await other.http.post(`/api/v1/automations/executions/${run.executionId}/cancel`)).status).toBe(404);
  });
});
