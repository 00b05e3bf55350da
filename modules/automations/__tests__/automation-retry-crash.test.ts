/**
 * A retried run survives its worker: the child-process worker running the retry (from the failed step) is
 * SIGKILLed while the failed node's action waits on a slow local server; a restarted worker completes the run,
 * once: the completed step before it is not redone and the step after it runs once.
 */
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { action, chainGraph, createAutomation, startLeadRun, waitFor } from '../../../test/support/automation-engine';
import { crashEngineSuite, hangingServer } from '../../../test/support/crash-suite';
import { json } from '../../../test/unit/messaging/local-http';

const suite = crashEngineSuite('Retry crash', { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
// 1st call (the original run) fails; 2nd (the retry) hangs while its worker is killed; later ones answer.
const server = hangingServer((n) =>
  n === 1 ? json(500, { error: 'down' }) : n > 2 ? json(200, { ok: true }) : undefined,
);
const { hits } = server;

describe('a worker killed -9 during a retried run', () => {
  it('a restarted worker completes the retry once; the completed steps are not redone', async () => {
    const { h, t } = suite;
    await h.startWorker();
    const automationId = await createAutomation(t.http, {
      ...chainGraph({ triggerType: 'lead_created' }, [
        action('create_note', { noteContent: 'before' }),
        action('http_request', { method: 'POST', url: `${server.url}/hook`, body: { hello: 'world' } }),
        action('create_note', { noteContent: 'after {{httpResponse.status}}' }),
      ]),
      executionSettings: { failureBehavior: 'stop' },
    });
    const lead = (await t.http.post('/api/v1/leads', { title: 'Crash' })).body.data;
    const failedId = await startLeadRun(h.engine, t.workspaceId, automationId, lead);
    expect((await h.waitForExecution(failedId, undefined, 20_000)).status).toBe('failed');

    // The retry runs on a worker of its own process, which dies in the middle of the failed node's call.
    await h.stopWorker();
    await suite.startChild({ STARTER_WORKSPACE_IDS: t.workspaceId });
    const retry = await t.http.post(`/api/v1/automations/executions/${failedId}/retry`, {});
    expect(retry.status).toBe(202);
    const retryId = retry.body.data.executionId as string;
    await waitFor(async () => hits.length === 2, 30_000, 'the retried action to call the slow server');
    await suite.killChild();

    await h.startWorker();
    const done = await h.waitForExecution(retryId, ['completed', 'failed'], 45_000);
    expect(done.status).toBe('completed');
    expect(done.retryOf).toBe(failedId);
    // The lost attempt is retried with the retry's own key (the receiver can tell); the original had another.
    expect(hits).toHaveLength(3);
    expect(hits[2]!.key).toBe(`${retryId}:n2`);
    expect(hits[1]!.key).toBe(hits[2]!.key);
    expect(hits[0]!.key).toBe(`${failedId}:n2`);
    const notes = await forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId).find(Note, { leadRef: lead._id });
    expect(notes.map((n) => n.content).sort()).toEqual(['after 200', 'before']);
    expect((await h.stepsOf(retryId)).map((s) => [s.nodeId, s.status])).toEqual([
      ['trigger', 'completed'],
      ['n1', 'completed'],
      ['n2', 'completed'],
      ['n3', 'completed'],
    ]);
  }, 150_000);
});
