/**
 * Worker crash mid-action: a child-process worker is SIGKILLed while an http_request action waits
 * on a slow local server; a new worker picks the attempt up after the heartbeat timeout (seconds),
 * not after the 2-minute start-to-close timeout.
 */
import { action, chainGraph, createAutomation, waitFor } from '../support/automation-engine';
import { crashEngineSuite, hangingServer } from '../support/crash-suite';
import { json } from '../unit/messaging/local-http';

const suite = crashEngineSuite('Worker crash', { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
// First call hangs (the worker is killed meanwhile); later calls answer at once.
const server = hangingServer((n) => (n > 1 ? json(200, { ok: true }) : undefined));
const { hits } = server;

describe('a worker killed -9 in the middle of an action', () => {
  it('the action is retried on a restarted worker within seconds and the run completes', async () => {
    const { h, t } = suite;
    // Its run starter starts this test's queued runs only (the database is shared).
    await suite.startChild({ STARTER_WORKSPACE_IDS: t.workspaceId });
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
    await suite.killChild();

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
