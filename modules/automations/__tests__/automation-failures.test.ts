import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { newId } from '../../../platform/ids';
import { action, chainGraph, createAutomation, startLeadRun } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';

let server: LocalHttp;
let base: string;
/** Per path: how many calls fail with 500 before one succeeds (Infinity: always). */
const plans = new Map<string, number>();
const calls = new Map<string, { key: string | undefined; body: string }[]>();

const suite = engineSuite('Failures');
beforeAll(async () => {
  server = await startHttp();
  server.respond((req, res) => {
    const list = calls.get(req.url) ?? [];
    list.push({ key: req.headers['idempotency-key'] as string | undefined, body: req.body });
    calls.set(req.url, list);
    const failFirst = plans.get(req.url) ?? 0;
    if (list.length <= failFirst) json(500, { error: 'down' })(req, res);
    else json(200, { id: `order-${list.length}`, nested: { ok: true } })(req, res);
  });
  base = server.url;
});
afterAll(() => server?.close());

const fastRetry = () => ({ ...suite.h.engine, retryIntervalMs: 300 });

async function run(
  settings: Record<string, unknown>,
  nodes: ReturnType<typeof action>[],
  path: string,
  failFirst: number,
) {
  plans.set(path, failFirst);
  const automationId = await createAutomation(suite.t.http, {
    ...chainGraph({ triggerType: 'lead_created' }, nodes),
    executionSettings: settings,
  });
  const lead = (await suite.t.http.post('/api/v1/leads', { title: `Lead ${path}` })).body.data;
  const executionId = await startLeadRun(fastRetry(), suite.t.workspaceId, automationId, lead);
  const done = await suite.h.waitForExecution(executionId, undefined, 20_000);
  const notes = await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(Note, {
    leadRef: lead._id,
  });
  return {
    done,
    steps: await suite.h.stepsOf(done._id),
    notes: notes.map((n) => n.content),
    calls: calls.get(path) ?? [],
  };
}

const hook = (path: string) =>
  action('http_request', {
    method: 'POST',
    url: `${base}${path}`,
    body: { lead: '{{lead.title}}' },
    responseMapping: { orderId: 'data.id' },
  });
const note = action('create_note', {
  noteContent: 'status {{httpResponse.status}} order {{httpResponse.orderId|default:none}}',
});

describe('failure behaviour', () => {
  it('stop: the execution fails at the node, nothing after it runs, the workflow fails too', async () => {
    const r = await run({ failureBehavior: 'stop' }, [hook('/stop'), note], '/stop', Infinity);
    expect(r.done).toMatchObject({ status: 'failed', error: expect.stringContaining('n1: POST') });
    expect(r.steps.map((s) => [s.nodeId, s.status, s.attempt])).toEqual([
      ['trigger', 'completed', 1],
      ['n1', 'failed', 1],
    ]);
    expect(r.steps[1]!.error).toContain('answered 500');
    expect(r.calls).toHaveLength(1);
    expect(r.notes).toEqual([]);
    await expect(suite.h.client.workflow.getHandle(r.done.workflowId).result()).rejects.toThrow(
      /Workflow execution failed/,
    );
  });

  it('continue: the node is marked failed and the flow goes on', async () => {
    const r = await run({ failureBehavior: 'continue' }, [hook('/continue'), note], '/continue', Infinity);
    expect(r.done.status).toBe('completed');
    expect(r.steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['trigger', 'completed'],
      ['n1', 'failed'],
      ['n2', 'completed'],
    ]);
    expect(r.notes).toEqual(['status  order none']);
  });

  it('retry: fails twice, succeeds on the third attempt; one effect per attempt key, mapped response in the context', async () => {
    const r = await run(
      { failureBehavior: 'retry', retryMaxAttempts: 3, retryIntervalMinutes: 1 },
      [hook('/flaky'), note],
      '/flaky',
      2,
    );
    expect(r.done.status).toBe('completed');
    expect(r.steps.find((s) => s.nodeId === 'n1')).toMatchObject({
      status: 'completed',
      attempt: 3,
      output: { status: 200, data: { id: 'order-3' }, mapped: { orderId: 'order-3' } },
    });
    expect(r.calls).toHaveLength(3);
    // Every attempt carries the same key, so the receiver can tell a retry from a new request.
    expect(new Set(r.calls.map((c) => c.key))).toEqual(new Set([`${r.done._id}:n1`]));
    expect(JSON.parse(r.calls[0]!.body)).toEqual({ lead: 'Lead /flaky' });
    expect(r.notes).toEqual(['status 200 order order-3']);
  });

  it('retry: gives up after retryMaxAttempts and then stops', async () => {
    const r = await run(
      { failureBehavior: 'retry', retryMaxAttempts: 2, retryIntervalMinutes: 1 },
      [hook('/down'), note],
      '/down',
      Infinity,
    );
    expect(r.done.status).toBe('failed');
    expect(r.steps.find((s) => s.nodeId === 'n1')).toMatchObject({ status: 'failed', attempt: 2 });
    expect(r.calls).toHaveLength(2);
    expect(r.notes).toEqual([]);
  });

  it('retry: a permanent error (not available, bad config) is not retried', async () => {
    const r = await run(
      { failureBehavior: 'retry', retryMaxAttempts: 5, retryIntervalMinutes: 1 },
      // Saved as a placeholder; at run time it resolves to the lead's title, which is no sequence id.
      [action('add_to_sequence', { sequenceId: '{{lead.title}}' })],
      '/none',
      0,
    );
    expect(r.done.status).toBe('failed');
    expect(r.steps.find((s) => s.nodeId === 'n1')).toMatchObject({
      status: 'failed',
      attempt: 1,
      error: 'add_to_sequence: sequenceId must be a 24-character hex id',
    });
  });
});

describe('actions that cannot act yet fail with a clear step error', () => {
  it.each([
    [
      action('add_to_sequence', { sequenceId: '{{lead.title}}' }),
      'add_to_sequence: sequenceId must be a 24-character hex id',
    ],
    [action('create_offer', { title: 'Offer' }), 'create_offer: offers are not available yet'],
    [
      action('accounting_create_invoice', { system: 'my_books', mapping: { customer: '{{company.name}}' } }),
      'integration not connected: my_books',
    ],
    // A placeholder that resolves to nothing leaves a required field empty at run time.
    [
      action('accounting_book_invoice', { system: 'my_books', invoiceId: '{{lead.invoiceNo}}' }),
      'accounting_book_invoice: config.invoiceId: is required',
    ],
    [action('send_sms', { message: 'Hi' }), 'send_sms: no primary phone number'],
    [
      action('set_access', { accessState: { owner: null, visibility: 'private' } }),
      'visibility and shares are not available',
    ],
  ])('%j', async (node, error) => {
    const r = await run({ failureBehavior: 'stop' }, [node], `/x-${newId()}`, 0);
    expect(r.done.status).toBe('failed');
    expect(r.steps.find((s) => s.nodeId === 'n1')!.error).toContain(error);
  });

  it('send_email without SMTP settings names what to configure', async () => {
    const automationId = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_created' }, [
        action('send_email', { subject: 'Hi', body: '<p>Hi {{lead.title}}</p>' }),
      ]),
    );
    const lead = (await suite.t.http.post('/api/v1/leads', { title: '<b>Bold</b>', email: 'x@example.test' })).body
      .data;
    const done = await suite.h.triggerRun(suite.t.http, automationId, {
      entityType: 'lead',
      entityId: lead._id,
    });
    expect(done.status).toBe('failed');
    const step = (await suite.h.stepsOf(done._id)).find((s) => s.nodeId === 'n1')!;
    expect(step.error).toMatch(/e-mail is not configured: set SMTP_URL/);
    // Placeholders in the HTML body are escaped; the resolved input is in the step log.
    expect(step.input).toMatchObject({ subject: 'Hi', body: '<p>Hi &lt;b&gt;Bold&lt;/b&gt;</p>' });
  });
});
