/**
 * Durable intake: API starts answer 202 after one commit with the run `queued`; the run starter
 * that lives with the worker starts it. Runs accepted while no worker runs start exactly once when
 * it returns; a workspace with too many queued runs is answered 429 with Retry-After.
 */
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import {
  action,
  chainGraph,
  createAutomation,
  createNoteAutomation,
  startEngineHarness,
  type EngineHarness,
} from '../../../test/support/automation-engine';
import type { Tenant } from '../../../test/support/app';
import { automationRunQueue } from '../engine/starter';
import type { EngineDeps } from '../engine/ports';
import { expectOk } from '../../../test/support/expect';

const CAP = 3;
let h: EngineHarness;
let t: Tenant;
beforeAll(async () => {
  h = await startEngineHarness({ INTAKE_MAX_QUEUED_PER_WORKSPACE: String(CAP) });
  // Bundle the workflows once now, so the starts below are quick; the tests run without a worker first.
  await h.startWorker();
  await h.stopWorker();
  t = await h.app.tenant('Intake');
}, 120_000);
afterAll(() => h?.close());
// Each test starts without a worker (and so without a run starter).
afterEach(() => h.stopWorker());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const notesOf = (leadId: string) =>
  forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId).find(Note, { leadRef: leadId });

describe('durable intake', () => {
  it('a webhook accepted while the worker is down stays queued, then runs exactly once when it returns', async () => {
    const lead = (await t.http.post('/api/v1/leads', { title: 'Queued' })).body.data;
    const id = await createAutomation(
      t.http,
      chainGraph(
        {
          triggerType: 'webhook',
          config: { secret: 'intake-secret', entityMapping: { entityType: 'Lead', entityIdField: 'leadId' } },
        },
        [action('create_note', { noteContent: 'hooked' })],
      ),
    );
    const send = () =>
      h.app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { leadId: lead._id },
        { headers: { 'x-webhook-secret': 'intake-secret', 'idempotency-key': 'delivery-1' } },
      );
    const res = await send();
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ executionId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'queued' });
    const executionId = res.body.data.executionId as string;
    // A re-delivery of the same webhook answers the same run.
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.body.data.executionId).toBe(executionId);

    await sleep(1000);
    const shown = await t.http.get(`/api/v1/automations/executions/${executionId}`);
    expectOk(shown, { status: 'queued', finishedAt: null });
    const listed = await t.http.get(`/api/v1/automations/${id}/executions?status=queued`);
    expect(listed.body.data.map((e: { _id: string }) => e._id)).toEqual([executionId]);
    expect(await h.stepsOf(executionId)).toHaveLength(0);

    await h.startWorker();
    const done = await h.waitForExecution(executionId, ['completed', 'failed', 'cancelled'], 30_000);
    expect(done.status).toBe('completed');
    expect(await h.executionsOf(id)).toHaveLength(1);
    expect((await h.stepsOf(executionId)).map((s) => s.nodeId)).toEqual(['trigger', 'n1']);
    expect((await notesOf(lead._id)).map((n) => n.content)).toEqual(['hooked']);
    // The starter counted the run on the automation.
    expect((await t.http.get(`/api/v1/automations/${id}`)).body.data.stats.totalRuns).toBe(1);
    await h.stopWorker();
  }, 60_000);

  it(`answers 429 with Retry-After once ${CAP} runs of the workspace wait to start; they start when the worker is back`, async () => {
    const id = await createNoteAutomation(t.http, 'capped');
    const lead = (await t.http.post('/api/v1/leads', { title: 'Capped' })).body.data;
    const trigger = () => t.http.post(`/api/v1/automations/${id}/trigger`, { entityType: 'lead', entityId: lead._id });
    const accepted: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const res = await trigger();
      expect(res.status).toBe(202);
      accepted.push(res.body.data.executionId as string);
    }
    const refused = await trigger();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatch(/too many runs of this workspace are waiting to start/);
    expect(await h.executionsOf(id)).toHaveLength(CAP);

    await h.startWorker();
    for (const executionId of accepted)
      expect((await h.waitForExecution(executionId, ['completed', 'failed'], 30_000)).status).toBe('completed');
    await sleep(300);
    const later = await trigger();
    expect(later.status).toBe(202);
    await h.waitForExecution(later.body.data.executionId as string, ['completed'], 30_000);
    await h.stopWorker();
  }, 60_000);

  it('a queued run that is cancelled never starts', async () => {
    const lead = (await t.http.post('/api/v1/leads', { title: 'Cancelled' })).body.data;
    const id = await createNoteAutomation(t.http, 'never');
    const res = await t.http.post(`/api/v1/automations/${id}/trigger`, { entityType: 'lead', entityId: lead._id });
    expect(res.status).toBe(202);
    const executionId = res.body.data.executionId as string;
    const cancelled = await t.http.post(`/api/v1/automations/executions/${executionId}/cancel`);
    expect(cancelled.status).toBe(200);
    await h.startWorker();
    await sleep(1500);
    const row = await h.waitForExecution(executionId, ['cancelled']);
    expect(row.status).toBe('cancelled');
    expect(await h.stepsOf(executionId)).toHaveLength(0);
    expect(await notesOf(lead._id)).toHaveLength(0);
    await h.stopWorker();
  }, 60_000);

  it(`webhook calls made at once: exactly ${CAP} are queued, the others answer 429 with Retry-After (nothing written for them)`, async () => {
    const tenant = await h.app.tenant('Webhook cap');
    const id = await createAutomation(
      tenant.http,
      chainGraph({ triggerType: 'webhook', config: { secret: 'cap-secret' } }, [
        action('create_note', { noteContent: 'capped' }),
      ]),
    );
    const send = (i: number) =>
      h.app.anonymous.post(`/api/webhooks/automation/${id}`, { i }, { headers: { 'x-webhook-secret': 'cap-secret' } });
    const answers = await Promise.all(Array.from({ length: CAP + 5 }, (_, i) => send(i)));
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted).toHaveLength(CAP);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.body.error).toMatch(/too many runs of this workspace are waiting to start/);
    }
    const rows = await h.executionsOf(id);
    expect(rows.map((r) => r._id).sort()).toEqual(accepted.map((a) => a.body.data.executionId as string).sort());
    expect(rows.every((r) => r.status === 'queued')).toBe(true);
  }, 60_000);

  it("the starter serves workspaces in turns: one workspace's queue does not hold back another's next run", async () => {
    const queueRuns = async (name: string, n: number) => {
      const tenant = await h.app.tenant(name);
      const id = await createAutomation(
        tenant.http,
        chainGraph({ triggerType: 'webhook', config: { secret: 'fair-secret' } }, [
          action('create_note', { noteContent: 'fair' }),
        ]),
      );
      for (let i = 0; i < n; i++) {
        const res = await h.app.anonymous.post(
          `/api/webhooks/automation/${id}`,
          { i },
          { headers: { 'x-webhook-secret': 'fair-secret' } },
        );
        expect(res.status).toBe(202);
      }
      return tenant.workspaceId;
    };
    // A's runs are all older than B's: first in, first out would claim A's first two.
    const a = await queueRuns('Fair A', CAP);
    const b = await queueRuns('Fair B', 1);
    const queue = automationRunQueue(h.app.runtime.deps as unknown as EngineDeps);
    const first = await queue.claim([a, b], 2, 0);
    expect(first.map((r) => r.workspace_id).sort()).toEqual([a, b].sort());
    // A lease of 0 s leaves them claimable again: the next claims take A's others (B has none left to take turns).
    const rest = await queue.claim([a, b], 10, 60);
    expect(rest.map((r) => r.workspace_id).sort()).toEqual([a, a, a, b].sort());
  }, 60_000);
});
