// Fair sharing between workspaces (issue 27, part 3): a cap on each workspace's automation runs in flight
// (modules/automations/engine/in-flight.ts). The harness mirrors the worker process here: the outbox subscriber queues
// the runs beyond the cap, the worker's starter starts them into the room as runs finish.
import { Client } from 'pg';
import { queuedRuns, roomFreed, START_QUEUE_CHANNEL } from '../../../platform/intake/queue-signal';
import { leadsAt } from '../../../test/support/lead-burst';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { activitiesOf, engineSuite } from '../../../test/support/engine-suite';

const CAP = 2;
const suite = engineSuite('Fair share A', { env: { AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE: String(CAP) } });

describe('runs in flight per workspace', () => {
  it(`a burst of 6 runs in one workspace: at most ${CAP} in flight, the rest queued and started as runs finish; another workspace's run starts at once`, async () => {
    const b = await suite.h.app.tenant('Fair share B');
    // A 4 s delay keeps each run in flight long enough to watch: longer than an outbox drain under load, so no run of
    // the first wave finishes (and lets the starter start a queued one) before the snapshot below.
    const graph = chainGraph({ triggerType: 'record_created', config: { entityTypes: ['lead'] } }, [
      { type: 'delay', data: { delayMinutes: 4 / 60 } },
      action('create_note', { noteContent: 'Hi {{lead.title}}' }),
    ]);
    const automationA = await createAutomation(suite.t.http, graph);
    const automationB = await createAutomation(b.http, graph);
    await leadsAt(suite.h, suite.t, 6);
    const d = suite.h.dispatcher([suite.t.workspaceId, b.workspaceId]);
    await d.drainOnce();

    const first = await suite.h.executionsOf(automationA);
    expect(first).toHaveLength(6);
    expect(first.filter((e) => e.status === 'running')).toHaveLength(CAP);
    expect(first.filter((e) => e.status === 'queued')).toHaveLength(6 - CAP);

    // B's event, behind A's backlog: its run starts at once (B has room), never queued.
    await leadsAt(suite.h, b, 1);
    await d.drainOnce();
    const [runB] = await suite.h.executionsOf(automationB);
    expect(runB?.status).toBe('running');

    let maxRunning = 0;
    const done = await waitFor(
      async () => {
        const runs = await suite.h.executionsOf(automationA);
        maxRunning = Math.max(maxRunning, runs.filter((e) => e.status === 'running').length);
        return runs.every((e) => e.status === 'completed') ? runs : null;
      },
      45_000,
      "A's six runs to complete",
    );
    expect(done).toHaveLength(6);
    expect(maxRunning).toBeLessThanOrEqual(CAP);
    expect((await suite.h.waitForExecution(runB!._id)).status).toBe('completed');
  }, 90_000);

  it('a finished run wakes the starter of its process (the next queued run starts without waiting for a poll)', async () => {
    const woken: string[] = [];
    const listen = (workspaceId: string): void => void woken.push(workspaceId);
    queuedRuns.on('queued', listen);
    try {
      const automationId = await createAutomation(
        suite.t.http,
        chainGraph({ triggerType: 'record_created', config: { entityTypes: ['lead'] } }, [
          action('create_note', { noteContent: 'Hi' }),
        ]),
      );
      await leadsAt(suite.h, suite.t, 1);
      await suite.h.dispatcher([suite.t.workspaceId]).drainOnce();
      const [run] = await suite.h.executionsOf(automationId);
      await suite.h.waitForExecution(run!._id);
      expect(woken).toContain(suite.t.workspaceId);
      // The activity itself: a finish that changed the row wakes; a repeated one (nothing changed) does not.
      woken.length = 0;
      const acts = await activitiesOf(suite.h);
      const again = await acts.finishExecution({
        workspaceId: suite.t.workspaceId,
        executionId: run!._id,
        status: 'completed',
        steps: [],
      });
      expect(again).toBe(false);
      expect(woken).toEqual([]);
    } finally {
      queuedRuns.off('queued', listen);
    }
  });

  it("where no starter runs (a backlog worker), freed room wakes every worker's starter through NOTIFY; else only this process's", async () => {
    const pg = new Client({ connectionString: suite.h.app.config.databaseUrl });
    await pg.connect();
    const notified: string[] = [];
    const woken: string[] = [];
    const listen = (workspaceId: string): void => void woken.push(workspaceId);
    pg.on('notification', (n) => notified.push(n.channel));
    queuedRuns.on('queued', listen);
    try {
      await pg.query(`listen ${START_QUEUE_CHANNEL}`);
      const em = suite.h.app.runtime.deps.orm.em;
      await roomFreed(em, suite.t.workspaceId, true);
      await new Promise((r) => setTimeout(r, 300));
      expect(notified).toEqual([]);
      expect(woken).toEqual([suite.t.workspaceId]);
      await roomFreed(em, suite.t.workspaceId, false);
      await waitFor(async () => (notified.length ? notified : null), 5_000, 'the NOTIFY');
      expect(notified).toEqual([START_QUEUE_CHANNEL]);
    } finally {
      queuedRuns.off('queued', listen);
      await pg.end();
    }
  });
});
