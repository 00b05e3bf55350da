/**
 * Retrying failed executions (modules/automations/engine/retry.ts): from the failed step or the start, on the
 * original or the current graph; the failed step's effect happens once more, completed steps' effects do not.
 */
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { newId } from '../../../platform/ids';
import type { Tenant } from '../../../test/support/app';
import { action, chainGraph, createAutomation, startLeadRun } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';

let other: Tenant;
let server: LocalHttp;
/** Paths the receiver fails (500) while listed. */
const failing = new Set<string>();
const calls = new Map<string, string[]>();

const suite = engineSuite('Retry');
beforeAll(async () => {
  other = await suite.h.app.tenant('Retry other');
  server = await startHttp();
  server.respond((req, res) => {
    calls.set(req.url, [...(calls.get(req.url) ?? []), req.headers['idempotency-key'] as string]);
    if (failing.has(req.url)) json(500, { error: 'down' })(req, res);
    else json(200, { id: 'ok' })(req, res);
  });
});
afterAll(() => server?.close());

/** trigger → n1 note "before" → n2 POST to the receiver → n3 note "after <status>" (stop on failure). */
const graph = (path: string, afterText = 'after') =>
  chainGraph({ triggerType: 'lead_created' }, [
    action('create_note', { noteContent: `before ${path}` }),
    action('http_request', { method: 'POST', url: `${server.url}${path}`, body: { lead: '{{lead.title}}' } }),
    action('create_note', { noteContent: `${afterText} ${path} {{httpResponse.status}}` }),
  ]);

interface Scenario {
  automationId: string;
  leadId: string;
  executionId: string;
  path: string;
}

/** An automation whose run fails at n2 (the receiver answers 500), after n1 made its note. */
async function failedRun(path: string, extra: Record<string, unknown> = {}): Promise<Scenario> {
  failing.add(path);
  const automationId = await createAutomation(suite.t.http, {
    ...graph(path),
    executionSettings: { failureBehavior: 'stop' },
    ...extra,
  });
  const lead = (await suite.t.http.post('/api/v1/leads', { title: `Lead ${path}` })).body.data;
  const executionId = await failOnce(automationId, lead._id);
  return { automationId, leadId: lead._id, executionId, path };
}

async function failOnce(automationId: string, leadId: string): Promise<string> {
  const executionId = await startLeadRun(suite.h.engine, suite.t.workspaceId, automationId, {
    _id: leadId,
    title: 'x',
  });
  const done = await suite.h.waitForExecution(executionId, undefined, 20_000);
  expect(done.status).toBe('failed');
  return done._id;
}

const notesOf = async (leadId: string): Promise<string[]> =>
  (await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(Note, { leadRef: leadId }))
    .map((n) => n.content)
    .sort();

async function retry(s: Scenario, body: Record<string, unknown>, headers?: Record<string, string>) {
  failing.delete(s.path);
  const res = await suite.t.http.post(`/api/v1/automations/executions/${s.executionId}/retry`, body, { headers });
  return res;
}

describe('retry one failed execution', () => {
  it('from the failed step on the original graph (the defaults): n1 not redone, n2 calls once more, n3 runs', async () => {
    const s = await failedRun('/step-original');
    expect(await notesOf(s.leadId)).toEqual(['before /step-original']);
    const res = await retry(s, {});
    const done = await suite.h.acceptedRun(res, undefined, 20_000);
    expect(res.body.data).toMatchObject({
      status: 'queued',
      retryOf: s.executionId,
      from: 'failed_step',
      definition: 'original',
      reusedSteps: 2,
      existing: false,
    });
    expect(done.status).toBe('completed');
    expect(await notesOf(s.leadId)).toEqual(['after /step-original 200', 'before /step-original']);
    const hits = calls.get('/step-original')!;
    expect(hits).toHaveLength(2);
    // A new run, a new idempotency key: the receiver sees a new request, not a retried attempt of the old one.
    expect(hits[1]).toBe(`${done._id}:n2`);
    expect((await suite.h.stepsOf(done._id)).map((x) => [x.nodeId, x.status])).toEqual([
      ['trigger', 'completed'],
      ['n1', 'completed'],
      ['n2', 'completed'],
      ['n3', 'completed'],
    ]);
    // Both views link the runs; the original keeps its history.
    const orig = await suite.t.http.get(`/api/v1/automations/executions/${s.executionId}`);
    expect(orig.body.data).toMatchObject({ status: 'failed', retries: [done._id], retryOf: null });
    expect(orig.body.data.steps.map((x: { nodeId: string; status: string }) => [x.nodeId, x.status])).toEqual([
      ['trigger', 'completed'],
      ['n1', 'completed'],
      ['n2', 'failed'],
    ]);
    const again = await suite.t.http.get(`/api/v1/automations/executions/${done._id}`);
    expect(again.body.data).toMatchObject({ retryOf: s.executionId, retries: [] });
    const list = await suite.t.http.get(`/api/v1/automations/${s.automationId}/executions`);
    expect(list.body.data.map((e: { _id: string; retryOf: string | null }) => [e._id, e.retryOf])).toEqual([
      [done._id, s.executionId],
      [s.executionId, null],
    ]);
    // A completed execution is not retryable.
    const refused = await suite.t.http.post(`/api/v1/automations/executions/${done._id}/retry`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/execution is completed; only failed executions can be retried/);
  }, 60_000);

  it('from the start on the original graph: every step runs again (n1 makes a second note)', async () => {
    const s = await failedRun('/start-original');
    const res = await retry(s, { from: 'start', definition: 'original' });
    const done = await suite.h.acceptedRun(res, undefined, 20_000);
    expect(res.body.data).toMatchObject({ from: 'start', reusedSteps: 0 });
    expect(done.status).toBe('completed');
    expect(await notesOf(s.leadId)).toEqual([
      'after /start-original 200',
      'before /start-original',
      'before /start-original',
    ]);
    expect(calls.get('/start-original')).toHaveLength(2);
  }, 60_000);

  it('from the failed step on the current graph: the remaining steps are the edited ones', async () => {
    const s = await failedRun('/step-current');
    const put = await suite.t.http.put(`/api/v1/automations/${s.automationId}`, graph('/step-current', 'edited'));
    expect(put.status).toBe(200);
    const res = await retry(s, { definition: 'current' });
    const done = await suite.h.acceptedRun(res, undefined, 20_000);
    expect(done.status).toBe('completed');
    expect(done.automationVersion).toBe(put.body.data.version);
    expect(await notesOf(s.leadId)).toEqual(['before /step-current', 'edited /step-current 200']);
    expect(calls.get('/step-current')).toHaveLength(2);
  }, 60_000);

  it('from the start on the current graph: every step of the edited graph runs', async () => {
    const s = await failedRun('/start-current');
    await suite.t.http.put(`/api/v1/automations/${s.automationId}`, graph('/start-current', 'edited'));
    const res = await retry(s, { from: 'start', definition: 'current' });
    const done = await suite.h.acceptedRun(res, undefined, 20_000);
    expect(done.status).toBe('completed');
    expect(await notesOf(s.leadId)).toEqual([
      'before /start-current',
      'before /start-current',
      'edited /start-current 200',
    ]);
  }, 60_000);

  it('409 naming the node when the failed node is not in the current graph; original still works', async () => {
    const s = await failedRun('/removed');
    // n2 (the failed node) removed: trigger → n1 → n3.
    const g = graph('/removed');
    const nodes = g.nodes.filter((n) => n.id !== 'n2');
    const edges = [
      { id: 'e1', source: 'trigger', target: 'n1', sourceHandle: null },
      { id: 'e2', source: 'n1', target: 'n3', sourceHandle: null },
    ];
    expect((await suite.t.http.put(`/api/v1/automations/${s.automationId}`, { nodes, edges })).status).toBe(200);
    const res = await retry(s, { definition: 'current' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/the failed node n2 is not in the automation's current graph/);
    const ok = await retry(s, { definition: 'original' });
    expect((await suite.h.acceptedRun(ok, undefined, 20_000)).status).toBe('completed');
  }, 60_000);

  it('Idempotency-Key: the repeated request answers the same retry; bad bodies are 400; other tenants 404', async () => {
    const s = await failedRun('/idem');
    const headers = { 'Idempotency-Key': `retry-${newId()}` };
    const a = await retry(s, {}, headers);
    const b = await retry(s, {}, headers);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.data.executionId).toBe(a.body.data.executionId);
    await suite.h.waitForExecution(a.body.data.executionId, undefined, 20_000);
    expect(calls.get('/idem')).toHaveLength(2);
    expect((await retry(s, { from: 'middle' })).status).toBe(400);
    expect((await retry(s, { definition: 'latest' })).status).toBe(400);
    const foreign = await other.http.post(`/api/v1/automations/executions/${s.executionId}/retry`, {});
    expect(foreign.status).toBe(404);
    const unknown = await suite.t.http.post(`/api/v1/automations/executions/${newId()}/retry`, {});
    expect(unknown.status).toBe(404);
  }, 60_000);
});

describe('run caps', () => {
  it('a retry is a run: a per-window cap that leaves no room refuses it (409; bulk: skipped with the reason)', async () => {
    const s = await failedRun('/capped', { rateLimits: { maxRunsPerHour: 1 } });
    const res = await retry(s, {});
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/retry skipped: maxRunsPerHour reached/);
    const bulk = await suite.t.http.post(`/api/v1/automations/${s.automationId}/executions/retry`, {});
    expect(bulk.status).toBe(202);
    expect(bulk.body.data).toEqual({
      count: 0,
      executionIds: [],
      skipped: [{ executionId: s.executionId, reason: expect.stringMatching(/maxRunsPerHour reached/) }],
    });
    expect(calls.get('/capped')).toHaveLength(1);
  }, 60_000);
});

describe('bulk retry', () => {
  it('retries the failed runs without a retry, oldest first, up to limit; limit 1000 accepted, 1001 refused', async () => {
    const s = await failedRun('/bulk');
    failing.add('/bulk');
    const second = await failOnce(s.automationId, s.leadId);
    const third = await failOnce(s.automationId, s.leadId);
    failing.delete('/bulk');
    const url = `/api/v1/automations/${s.automationId}/executions/retry`;
    expect((await suite.t.http.post(url, { limit: 1001 })).status).toBe(400);
    expect((await suite.t.http.post(url, { limit: 0 })).status).toBe(400);
    expect((await suite.t.http.post(url, { status: 'completed' })).status).toBe(400);
    // A window that ends before the runs: nothing to retry.
    const none = await suite.t.http.post(url, { until: '2020-01-01T00:00:00Z', limit: 1000 });
    expect(none.status).toBe(202);
    expect(none.body.data).toEqual({ count: 0, executionIds: [], skipped: [] });

    const res = await suite.t.http.post(url, { status: 'failed', limit: 2 });
    expect(res.status).toBe(202);
    expect(res.body.data.count).toBe(2);
    const retried = await Promise.all(
      (res.body.data.executionIds as string[]).map((id) => suite.h.waitForExecution(id, undefined, 20_000)),
    );
    expect(retried.map((e) => [e.retryOf, e.status])).toEqual([
      [s.executionId, 'completed'],
      [second, 'completed'],
    ]);
    const rest = await suite.t.http.post(url, { limit: 1000 });
    expect(rest.status).toBe(202);
    expect(rest.body.data.count).toBe(1);
    expect((await suite.h.waitForExecution(rest.body.data.executionIds[0], undefined, 20_000)).retryOf).toBe(third);
    // Nothing failed is left without a retry; n1's note is never made again (3 runs, 3 "before" notes).
    expect((await suite.t.http.post(url, { limit: 1000 })).body.data.count).toBe(0);
    const notes = await notesOf(s.leadId);
    expect(notes.filter((n) => n.startsWith('before'))).toHaveLength(3);
    expect(notes.filter((n) => n.startsWith('after'))).toHaveLength(3);
    expect((await other.http.post(url, {})).status).toBe(404);
  }, 90_000);
});
