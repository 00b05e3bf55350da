// The backlog lane (issue 27, part 3; docs/automations.md "Fair sharing between workspaces"): the starter sends the
// queued runs of a workspace with a backlog to TEMPORAL_BACKLOG_TASK_QUEUE, served by a backlog worker (WORKER_ROLE=
// backlog, a lower CPU priority under npm start), so one workspace's burst leaves the main worker to the others. The
// harness's port is built as the `main` worker process builds it.
import { BACKLOG_POLLERS_TTL_MS } from '../../../platform/temporal/workflow-client';
import type { AutomationExecution } from '../automation.entity';
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { leadsAt } from '../../../test/support/lead-burst';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';

const CAP = 2;
const BACKLOG_CAP = 4;
const suite = engineSuite('Backlog lane A', {
  env: {
    AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE: String(CAP),
    AUTOMATION_MAX_IN_FLIGHT_BACKLOG: String(BACKLOG_CAP),
  },
  harness: { backlogLane: true },
});
const graph = chainGraph({ triggerType: 'record_created', config: { entityTypes: ['lead'] } }, [
  action('create_note', { noteContent: 'Hi {{lead.title}}' }),
]);

/** Every run of the automation, once all `n` are completed. */
const completed = (automationId: string, n: number): Promise<AutomationExecution[]> =>
  waitFor(
    async () => {
      const runs = await suite.h.executionsOf(automationId);
      return runs.length === n && runs.every((e) => e.status === 'completed') ? runs : null;
    },
    60_000,
    `${n} runs to complete`,
  );

let backlogWorkerUp: Promise<void> | undefined;
/** A worker polling the backlog queue, started once for the tests that need one, and the port aware of it. */
const backlogWorker = (): Promise<void> =>
  (backlogWorkerUp ??= (async () => {
    await suite.h.startWorker({ taskQueue: suite.h.app.config.temporalBacklogTaskQueue });
    // The port re-checks the backlog queue's pollers after BACKLOG_POLLERS_TTL_MS (an earlier start cached "none").
    await new Promise((r) => setTimeout(r, BACKLOG_POLLERS_TTL_MS + 500));
  })());

/** The task queue each run's workflow ran on. */
const queuesOf = async (runs: AutomationExecution[]): Promise<string[]> =>
  Promise.all(runs.map(async (r) => (await suite.h.client.workflow.getHandle(r.workflowId).describe()).taskQueue));

describe('the backlog lane', () => {
  it('the backlog queue defaults to `<task queue>-backlog`', () => {
    expect(suite.h.app.config.temporalBacklogTaskQueue).toBe(`${suite.h.taskQueue}-backlog`);
  });

  it('with no backlog worker polling, a burst runs wholly on the main queue (no run waits for a worker)', async () => {
    const automationId = await createAutomation(suite.t.http, graph);
    await leadsAt(suite.h, suite.t, 6);
    await suite.h.dispatcher([suite.t.workspaceId]).drainOnce();
    const runs = await completed(automationId, 6);
    expect(new Set(await queuesOf(runs))).toEqual(new Set([suite.h.taskQueue]));
    // Off again: the next test counts one note per lead.
    expect((await suite.t.http.post(`/api/v1/automations/${automationId}/toggle`)).status).toBe(200);
  }, 90_000);

  it("with a backlog worker polling, the runs queued behind a workspace's backlog run there, each once; another workspace's run stays on the main queue", async () => {
    const backlogQueue = suite.h.app.config.temporalBacklogTaskQueue;
    await backlogWorker();
    const b = await suite.h.app.tenant('Backlog lane B');
    const automationA = await createAutomation(suite.t.http, graph);
    const automationB = await createAutomation(b.http, graph);
    const leadsA = await leadsAt(suite.h, suite.t, 8);
    const d = suite.h.dispatcher([suite.t.workspaceId, b.workspaceId]);
    await d.drainOnce();
    await leadsAt(suite.h, b, 1);
    await d.drainOnce();

    const runsA = await completed(automationA, 8);
    const queuesA = await queuesOf(runsA);
    // The first CAP started at once (main); of the queued rest, those claimed while more stayed queued: backlog.
    expect(queuesA.filter((q) => q === backlogQueue).length).toBeGreaterThanOrEqual(1);
    expect(queuesA.filter((q) => q === suite.h.taskQueue).length).toBeGreaterThanOrEqual(CAP);
    // Each run did its one action once, on whichever queue: one note on each lead.
    const em = forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId);
    for (const leadId of leadsA) expect(await em.count(Note, { leadRef: leadId })).toBe(1);
    const runsB = await completed(automationB, 1);
    expect(await queuesOf(runsB)).toEqual([suite.h.taskQueue]);
  }, 120_000);

  it(`while the backlog worker polls, a burst keeps up to ${BACKLOG_CAP} runs in flight (AUTOMATION_MAX_IN_FLIGHT_BACKLOG), those beyond the main cap of ${CAP} on the backlog queue`, async () => {
    await backlogWorker();
    const backlogQueue = suite.h.app.config.temporalBacklogTaskQueue;
    const c = await suite.h.app.tenant('Backlog lane C');
    // A 5 s delay keeps each run in flight long enough to count the runs in flight.
    const automationId = await createAutomation(
      c.http,
      chainGraph({ triggerType: 'record_created', config: { entityTypes: ['lead'] } }, [
        { type: 'delay', data: { delayMinutes: 5 / 60 } },
        action('create_note', { noteContent: 'Hi {{lead.title}}' }),
      ]),
    );
    await leadsAt(suite.h, c, 10);
    await suite.h.dispatcher([c.workspaceId]).drainOnce();
    let maxRunning = 0;
    const runs = await waitFor(
      async () => {
        const all = await suite.h.executionsOf(automationId);
        maxRunning = Math.max(maxRunning, all.filter((e) => e.status === 'running').length);
        return all.length === 10 && all.every((e) => e.status === 'completed') ? all : null;
      },
      90_000,
      '10 runs to complete',
    );
    // More than the main cap in flight at once, never more than the backlog lane's cap.
    expect(maxRunning).toBe(BACKLOG_CAP);
    const queues = await queuesOf(runs);
    // The first CAP started at once on the main queue; the runs beyond the cap, on the backlog queue.
    expect(queues.filter((q) => q === backlogQueue).length).toBeGreaterThanOrEqual(BACKLOG_CAP - CAP);
    expect(queues.filter((q) => q === suite.h.taskQueue).length).toBeGreaterThanOrEqual(CAP);
  }, 120_000);
});
