/**
 * The webhook intake's group commit (modules/automations/engine/intake-batch.ts): calls arriving
 * together are recorded by one statement, yet each is answered on its own, the per-automation rate
 * limit stays exact in arrival order, and re-deliveries with one Idempotency-Key record one run.
 * No worker runs here: the runs stay queued.
 */
import * as lean from '../../../platform/orm/lean';
import { AutomationExecution } from '../automation.entity';
import { action, chainGraph, createAutomation } from '../../../test/support/automation-engine';
import { startTestApp, type TestApp, type Tenant } from '../../../test/support/app';

const PER_MINUTE = 5;
let app: TestApp;
let t: Tenant;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
}, 60_000);
// The limit holds for API keys too: each test has its own workspace (and key).
beforeEach(async () => {
  t = await app.tenant();
});
afterAll(() => app?.close());

const webhook = (secret: string) =>
  createAutomation(
    t.http,
    chainGraph({ triggerType: 'webhook', config: { secret } }, [action('create_note', { noteContent: 'batched' })]),
  );
const runsOf = (automationId: string) =>
  app.runtime.deps.orm.em.fork().find(AutomationExecution, { automationId }, { filters: false });

/**
 * Counts the group-commit statements sent while `fn` runs. The first one is held 300 ms, as a busy database would
 * hold it: calls that arrive meanwhile must then share the next statements (on a loaded machine the calls may
 * otherwise arrive one by one, each after the previous statement finished, and the count proves nothing).
 */
async function countingBatches<T>(fn: () => Promise<T>): Promise<{ result: T; batches: number }> {
  const original = lean.leanQuery;
  let held = false;
  const spy = jest.spyOn(lean, 'leanQuery').mockImplementation(async (...args: Parameters<typeof lean.leanQuery>) => {
    if (args[3] === 'intake_guarded_batch' && !held) {
      held = true;
      await new Promise((r) => setTimeout(r, 300));
    }
    return original(...args);
  });
  try {
    const result = await fn();
    const batches = spy.mock.calls.filter(([, , , name]) => name === 'intake_guarded_batch').length;
    return { result, batches };
  } finally {
    spy.mockRestore();
  }
}

describe('webhook intake: group commit', () => {
  it('a burst shares statements; exactly the per-minute limit is accepted, the rest 429 with Retry-After', async () => {
    const id = await webhook('burst-secret');
    const send = (i: number) =>
      app.anonymous.post(`/api/webhooks/automation/${id}`, { i }, { headers: { 'x-webhook-secret': 'burst-secret' } });
    // The first call loads the automation into the process's cache (and counts in the limit).
    expect((await send(-1)).status).toBe(202);
    const CALLS = 20;
    const LEFT = PER_MINUTE - 1;
    const { result: answers, batches } = await countingBatches(() =>
      Promise.all(Array.from({ length: CALLS }, (_, i) => send(i))),
    );
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted).toHaveLength(LEFT);
    expect(refused).toHaveLength(CALLS - LEFT);
    for (const r of refused) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.body.error).toMatch(/too many webhook calls for this automation/);
    }
    // Each accepted call got its own run, and only those runs were written.
    const ids = accepted.map((a) => a.body.data.executionId as string);
    expect(new Set(ids).size).toBe(LEFT);
    const rows = (await runsOf(id)).filter((r) => (r.context.webhookData as { i: number }).i >= 0);
    expect(rows.map((r) => r._id).sort()).toEqual([...ids].sort());
    expect(await runsOf(id)).toHaveLength(PER_MINUTE);
    expect(rows.every((r) => r.status === 'queued' && r.workspaceId === t.workspaceId)).toBe(true);
    // Each run holds the body of the call it answered.
    answers.forEach((a, i) => {
      if (a.status !== 202) return;
      const row = rows.find((r) => r._id === a.body.data.executionId)!;
      expect(row.context.webhookData).toEqual({ i });
    });
    // Calls that arrived together shared a statement.
    expect(batches).toBeGreaterThan(0);
    expect(batches).toBeLessThan(CALLS);
  });

  it('concurrent re-deliveries with one Idempotency-Key record one run and all answer it', async () => {
    const id = await webhook('redelivery-secret');
    const send = () =>
      app.anonymous.post(
        `/api/webhooks/automation/${id}`,
        { order: 7 },
        { headers: { 'x-webhook-secret': 'redelivery-secret', 'idempotency-key': 'delivery-7' } },
      );
    const answers = await Promise.all(Array.from({ length: 4 }, send));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    const ids = new Set(answers.map((a) => a.body.data.executionId as string));
    expect(ids.size).toBe(1);
    const rows = await runsOf(id);
    expect(rows.map((r) => r._id)).toEqual([...ids]);
  });

  it('calls to several automations in one batch are each checked against their own automation', async () => {
    const a = await webhook('secret-a');
    const b = await webhook('secret-b');
    // b is deactivated behind the cache: its calls must be refused (404), a's recorded.
    const fire = (id: string, secret: string) =>
      app.anonymous.post(`/api/webhooks/automation/${id}`, {}, { headers: { 'x-webhook-secret': secret } });
    expect((await fire(b, 'secret-b')).status).toBe(202); // cached now
    expect((await t.http.post(`/api/v1/automations/${b}/toggle`)).body.data.isActive).toBe(false);
    const answers = await Promise.all([fire(a, 'secret-a'), fire(b, 'secret-b'), fire(a, 'secret-a')]);
    expect(answers.map((r) => r.status)).toEqual([202, 404, 202]);
    expect(await runsOf(a)).toHaveLength(2);
    expect(await runsOf(b)).toHaveLength(1);
  });
});
