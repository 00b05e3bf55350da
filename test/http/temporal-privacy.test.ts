/**
 * What an operator sees in Temporal: no secret in any payload (inputs, results, activity inputs,
 * memo, summaries) even once the payloads are decoded; every payload encrypted at rest; readable
 * summaries per run and per step; the codec server that decodes them for the Web UI and the CLI.
 */
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { SECRET_REF } from '../../modules/automations/secrets';
import { automationExecutionKind } from '../../modules/automations/automation-execution.kind';
import { AesGcmPayloadCodec, ENCRYPTED_ENCODING, parsePayloadKeys } from '../../platform/temporal/codec';
import { startTestApp } from '../support/app';
import { action, chainGraph, createAutomation } from '../support/automation-engine';
import { engineSuite } from '../support/engine-suite';
import { json, startHttp, type LocalHttp } from '../unit/messaging/local-http';
import { expectError } from '../support/expect';

const HOOK_SECRET = 'hook-secret-Zq81xYw7Pk';
const BEARER = 'tok-Ab12Cd34Ef56Gh78Ij90';
const API_KEY = 'apikey-Qw12Er34Ty56Ui78';
const EMAIL = 'ada.lovelace@example.com';

let server: LocalHttp;
let target: string;
const received: { authorization?: string; apiKey?: string; body: string }[] = [];

const suite = engineSuite('Privacy');
beforeAll(async () => {
  server = await startHttp();
  server.respond((req, res) => {
    received.push({
      authorization: req.headers.authorization,
      apiKey: req.headers['x-api-key'] as string | undefined,
      body: req.body,
    });
    json(200, '{"ok":true}')(req, res);
  });
  target = `${server.url}/hook`;
});
afterAll(() => server?.close());

const codec = () => new AesGcmPayloadCodec(parsePayloadKeys(suite.h.app.config.temporalCodec.payloadKeys!));
type JsonPayload = { metadata?: Record<string, string>; data?: string };

/** Every payload of a history (inputs, results, memo, search attributes, user metadata), as JSON. */
function payloadsOf(node: unknown, out: JsonPayload[] = []): JsonPayload[] {
  if (Array.isArray(node)) for (const v of node) payloadsOf(v, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.metadata && typeof o.metadata === 'object' && 'encoding' in (o.metadata as object))
      out.push(o as JsonPayload);
    else for (const v of Object.values(o)) payloadsOf(v, out);
  }
  return out;
}

const b64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64');
const encodingOf = (p: JsonPayload) => b64(p.metadata?.encoding).toString('utf8');

async function historyJson(workflowId: string): Promise<{ events: Record<string, unknown>[] }> {
  return JSON.parse(historyToJSON(await suite.h.client.workflow.getHandle(workflowId).fetchHistory()));
}

/** The history with every payload decoded through the codec, as one text to search. */
function decodedText(history: unknown): string {
  const c = codec();
  return payloadsOf(history)
    .map((p) => {
      const decoded = c.decodeOne({
        metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
        data: b64(p.data),
      });
      return Buffer.from(decoded.data ?? new Uint8Array()).toString('utf8');
    })
    .join('\n');
}

const httpGraph = (
  trigger: { triggerType: string; config?: Record<string, unknown> },
  headers: Record<string, string> = {
    Authorization: `Bearer ${BEARER}`,
    'X-Api-Key': API_KEY,
    Accept: 'application/json',
  },
) =>
  chainGraph(trigger, [
    action(
      'http_request',
      { method: 'POST', url: target, headers, body: { order: '{{webhookData.order.id}}' } },
      'call_crm',
    ),
    action('create_record', { recordType: 'lead', fieldValues: { title: 'From hook' } }, 'record_1'),
  ]);

async function fireWebhook(automationId: string, body: unknown): Promise<string> {
  const res = await suite.h.app.anonymous.post(`/api/webhooks/automation/${automationId}`, body, {
    headers: { 'x-webhook-secret': HOOK_SECRET },
  });
  expect(res.status).toBe(202);
  return res.body.data.executionId as string;
}

describe('Temporal histories', () => {
  let workflowId: string;
  let executionId: string;
  let automationName: string;

  beforeAll(async () => {
    const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Privacy lead', email: EMAIL })).body.data;
    automationName = 'Privacy hook';
    const id = await createAutomation(suite.t.http, {
      name: automationName,
      ...httpGraph({
        triggerType: 'webhook',
        config: { secret: HOOK_SECRET, entityMapping: { entityType: 'Lead', entityIdField: 'leadId' } },
      }),
    });
    executionId = await fireWebhook(id, { order: { id: 'A-17' }, leadId: lead._id });
    const done = await suite.h.waitForExecution(executionId);
    expect(done.status).toBe('completed');
    workflowId = done.workflowId;
  }, 60_000);

  it('the real secrets reached the endpoint (loaded inside the activity)', () => {
    const call = received.find((r) => r.body.includes('A-17'));
    expect(call).toMatchObject({ authorization: `Bearer ${BEARER}`, apiKey: API_KEY });
  });

  it('no secret in any decoded payload of the run (input, activity inputs and results, memo, summaries)', async () => {
    const text = decodedText(await historyJson(workflowId));
    // Positive controls: decoding worked and the graph is there, with references for the secrets.
    expect(text).toContain('A-17');
    expect(text).toContain(SECRET_REF);
    expect(text).toContain('http_request');
    for (const secret of [HOOK_SECRET, BEARER, API_KEY, BEARER.slice(-8), HOOK_SECRET.slice(-8)])
      expect(text).not.toContain(secret);
  });

  it('payloads are ciphertext at rest (everything but the search attributes)', async () => {
    const history = await historyJson(workflowId);
    const started = history.events[0]!.workflowExecutionStartedEventAttributes as {
      input: { payloads: JsonPayload[] };
      memo: unknown;
      searchAttributes: unknown;
    };
    const input = started.input.payloads[0]!;
    expect(encodingOf(input)).toBe(ENCRYPTED_ENCODING);
    const raw = [...payloadsOf(started.input), ...payloadsOf(started.memo)]
      .map((p) => b64(p.data).toString('latin1'))
      .join('\n');
    for (const clear of [EMAIL, 'A-17', automationName, 'Privacy lead']) expect(raw).not.toContain(clear);
    const all = payloadsOf(history);
    // Not ours to encrypt: search attributes (indexed by the server: ids only) and the SDK core's
    // own local-activity marker data (sequence number, attempt, activity type, times).
    const coreMarkers = history.events.flatMap((e) =>
      payloadsOf((e.markerRecordedEventAttributes as { details?: { data?: unknown } } | undefined)?.details?.data),
    );
    for (const m of coreMarkers)
      expect(Object.keys(JSON.parse(b64(m.data).toString('utf8'))).sort()).toEqual([
        'activity_id',
        'activity_type',
        'attempt',
        'backoff',
        'complete_time',
        'original_schedule_time',
        'seq',
      ]);
    const exempt = new Set([...payloadsOf(started.searchAttributes), ...coreMarkers]);
    const plain = all.filter((p) => !exempt.has(p) && encodingOf(p) !== ENCRYPTED_ENCODING);
    expect(plain.map(encodingOf)).toEqual([]);
    expect(all.length - exempt.size).toBeGreaterThan(10);
    // The record's e-mail is in the (encrypted) run context; decoding shows it, the raw bytes do not.
    expect(decodedText(history)).toContain(EMAIL);
  });

  it('the run has a readable summary and details (describe), built from the registry', async () => {
    const d = await suite.h.client.workflow.getHandle(workflowId).describe();
    const row = (await suite.t.http.get(`/api/v1/automations/executions/${executionId}`)).body.data;
    expect(await d.staticSummary()).toBe(`Automation "${automationName}" · webhook · lead ${row.entityId}`);
    expect(await d.staticDetails()).toContain(`\`${executionId}\``);
    expect(d.memo).toMatchObject({ automationName, executionId });
    const viaPort = await suite.h.workflows.describe(workflowId);
    expect(viaPort).toMatchObject({
      status: 'completed',
      workflowType: automationExecutionKind.workflowType,
      summary: `Automation "${automationName}" · webhook · lead ${row.entityId}`,
    });
    expect(viaPort!.searchAttributes).toMatchObject({
      CrmWorkspaceId: suite.t.workspaceId,
      CrmTriggerType: 'webhook',
      CrmEntityType: 'lead',
    });
    expect(
      await suite.h.workflows.describe(automationExecutionKind.workflowId(suite.t.workspaceId, '0'.repeat(24))),
    ).toBeNull();
  });

  it('each activity is named after its node (activity summary in the history)', async () => {
    const history = await historyJson(workflowId);
    const c = codec();
    const summaries = history.events
      .map((e) => (e.userMetadata as { summary?: JsonPayload } | undefined)?.summary)
      .filter((s): s is JsonPayload => Boolean(s))
      .map(
        (s) =>
          JSON.parse(
            Buffer.from(
              c.decodeOne({
                metadata: Object.fromEntries(Object.entries(s.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
                data: b64(s.data),
              }).data!,
            ).toString('utf8'),
          ) as string,
      );
    expect(summaries).toEqual(expect.arrayContaining(['http_request · call_crm', 'create_record · record_1']));
  });
});

describe('credential headers are write-only', () => {
  it('reads mask them, a PUT of the read keeps them, the step log masks them', async () => {
    const id = await createAutomation(
      suite.t.http,
      httpGraph({ triggerType: 'webhook', config: { secret: HOOK_SECRET } }),
    );
    const read = (await suite.t.http.get(`/api/v1/automations/${id}`)).body.data;
    const headersOf = (nodes: { id: string; data: { config?: { headers?: Record<string, string> } } }[]) =>
      nodes.find((n) => n.id === 'call_crm')!.data.config!.headers;
    expect(headersOf(read.nodes)).toEqual({
      Authorization: `****${BEARER.slice(-4)}`,
      'X-Api-Key': `****${API_KEY.slice(-4)}`,
      Accept: 'application/json',
    });
    expect(JSON.stringify((await suite.t.http.get('/api/v1/automations')).body)).not.toContain(BEARER);
    const put = await suite.t.http.put(`/api/v1/automations/${id}`, {
      name: 'Renamed',
      nodes: read.nodes,
      edges: read.edges,
    });
    expect(put.status).toBe(200);
    expect(JSON.stringify(put.body)).not.toContain(BEARER);

    const before = received.length;
    const executionId = await fireWebhook(id, { order: { id: 'B-2' } });
    expect((await suite.h.waitForExecution(executionId)).status).toBe('completed');
    expect(received.slice(before).find((r) => r.body.includes('B-2'))).toMatchObject({
      authorization: `Bearer ${BEARER}`,
      apiKey: API_KEY,
    });
    const detail = (await suite.t.http.get(`/api/v1/automations/executions/${executionId}`)).body.data;
    expect(headersOf(detail.graph.nodes)).toEqual({
      Authorization: `****${BEARER.slice(-4)}`,
      'X-Api-Key': `****${API_KEY.slice(-4)}`,
      Accept: 'application/json',
    });
    expect(JSON.stringify(detail)).not.toContain(BEARER);
    expect(JSON.stringify(detail)).not.toContain(API_KEY);
    const stored = await suite.h.stepsOf(executionId);
    expect(JSON.stringify(stored.map((s) => s.input))).not.toContain(BEARER);
    expect(
      (stored.find((s) => s.nodeId === 'call_crm')!.input as { headers: Record<string, string> }).headers.Authorization,
    ).toBe(`****${BEARER.slice(-4)}`);
  });

  it('a run waiting on a delay still sends the header of the version it started with', async () => {
    const graph = chainGraph({ triggerType: 'webhook', config: { secret: HOOK_SECRET } }, [
      { type: 'delay', data: { delayMinutes: 2 / 60 } },
      action(
        'http_request',
        {
          method: 'POST',
          url: target,
          headers: { Authorization: `Bearer ${BEARER}` },
          body: { order: '{{webhookData.order.id}}' },
        },
        'call_crm',
      ),
    ]);
    const id = await createAutomation(suite.t.http, graph);
    const executionId = await fireWebhook(id, { order: { id: 'C-3' } });
    const read = (await suite.t.http.get(`/api/v1/automations/${id}`)).body.data;
    const edited = read.nodes.map((n: { id: string; data: { config?: Record<string, unknown> } }) =>
      n.id === 'call_crm'
        ? {
            ...n,
            data: {
              ...n.data,
              config: { ...n.data.config, headers: { Authorization: 'Bearer rotated-token-000000' } },
            },
          }
        : n,
    );
    expect((await suite.t.http.put(`/api/v1/automations/${id}`, { nodes: edited })).status).toBe(200);
    expect((await suite.h.waitForExecution(executionId, undefined, 20_000)).status).toBe('completed');
    expect(received.find((r) => r.body.includes('C-3'))?.authorization).toBe(`Bearer ${BEARER}`);
  });
});

describe('codec server', () => {
  const token = () => suite.h.app.config.temporalCodec.authToken!;
  const plainPayload = {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from(JSON.stringify({ hello: EMAIL })).toString('base64'),
  };

  it('encodes and decodes with the bearer token; the path token works for browsers', async () => {
    const enc = await suite.h.app.anonymous.post(
      '/codec/encode',
      { payloads: [plainPayload] },
      { headers: { authorization: `Bearer ${token()}`, 'x-namespace': 'default' } },
    );
    expect(enc.status).toBe(200);
    expect(encodingOf(enc.body.payloads[0])).toBe(ENCRYPTED_ENCODING);
    expect(b64(enc.body.payloads[0].data).toString('latin1')).not.toContain(EMAIL);
    const dec = await suite.h.app.anonymous.post(`/codec/${token()}/decode`, enc.body);
    expect(dec.status).toBe(200);
    expect(dec.body.payloads).toEqual([{ metadata: plainPayload.metadata, data: plainPayload.data }]);
  });

  it('decodes a real history payload (what the Web UI asks for)', async () => {
    const id = await createAutomation(
      suite.t.http,
      httpGraph({ triggerType: 'webhook', config: { secret: HOOK_SECRET } }),
    );
    const executionId = await fireWebhook(id, { order: { id: 'D-4' } });
    const row = await suite.h.waitForExecution(executionId);
    const history = await historyJson(row.workflowId);
    const input = (history.events[0]!.workflowExecutionStartedEventAttributes as { input: { payloads: JsonPayload[] } })
      .input.payloads[0]!;
    const dec = await suite.h.app.anonymous.post(
      '/codec/decode',
      { payloads: [input] },
      { headers: { authorization: `Bearer ${token()}` } },
    );
    expect(dec.status).toBe(200);
    expect(encodingOf(dec.body.payloads[0])).toBe('json/plain');
    const decoded = JSON.parse(b64(dec.body.payloads[0].data).toString('utf8'));
    expect(decoded).toMatchObject({ executionId, context: { webhookData: { order: { id: 'D-4' } } } });
    expect(JSON.stringify(decoded)).not.toContain(HOOK_SECRET);
  });

  it.each([
    ['no token', '/codec/decode', {}],
    ['a wrong bearer token', '/codec/decode', { authorization: 'Bearer nope' }],
    ['a wrong path token', '/codec/nope/decode', {}],
    ['a CRM-style API key', '/codec/encode', { authorization: 'Bearer crm_live_whatever' }],
  ])('%s is 401', async (_label, path, headers) => {
    const res = await suite.h.app.anonymous.post(
      path,
      { payloads: [plainPayload] },
      { headers: headers as Record<string, string> },
    );
    expectError(res, 401);
  });

  it.each([
    ['not JSON', { raw: 'nope' }],
    ['no payloads', { body: {} }],
    ['data that is not base64', { body: { payloads: [{ metadata: {}, data: '***' }] } }],
    [
      'an encrypted payload with an unknown key id',
      {
        body: {
          payloads: [
            {
              metadata: {
                encoding: Buffer.from(ENCRYPTED_ENCODING).toString('base64'),
                'encryption-key-id': Buffer.from('zz').toString('base64'),
              },
              data: Buffer.alloc(40).toString('base64'),
            },
          ],
        },
      },
    ],
  ])('%s is 400', async (_label, req) => {
    const res = await suite.h.app.anonymous.post('/codec/decode', (req as { body?: unknown }).body, {
      headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
      raw: (req as { raw?: string }).raw,
    });
    expectError(res, 400);
  });

  it('answers CORS preflights for the Web UI origin only (X-Namespace and Authorization allowed)', async () => {
    const ui = suite.h.app.config.temporalCodec.corsOrigins[0]!;
    expect(ui).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const pre = await suite.h.app.anonymous.request('OPTIONS', '/codec/decode', undefined, {
      headers: {
        origin: ui,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-namespace,authorization,content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(ui);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const localhost = await suite.h.app.anonymous.request('OPTIONS', '/codec/decode', undefined, {
      headers: { origin: ui.replace('127.0.0.1', 'localhost') },
    });
    expect(localhost.headers.get('access-control-allow-origin')).toBe(ui.replace('127.0.0.1', 'localhost'));
    const other = await suite.h.app.anonymous.request('OPTIONS', '/codec/decode', undefined, {
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const post = await suite.h.app.anonymous.post(
      `/codec/${token()}/encode`,
      { payloads: [] },
      { headers: { origin: ui } },
    );
    expect(post.status).toBe(200);
    expect(post.headers.get('access-control-allow-origin')).toBe(ui);
    expect((await suite.h.app.anonymous.get('/codec/decode')).status).toBe(405);
  });

  it('answers 503 not_configured without keys or token', async () => {
    const app = await startTestApp({ TEMPORAL_CODEC_AUTH_TOKEN: '' });
    try {
      const res = await app.anonymous.post(
        '/codec/decode',
        { payloads: [] },
        { headers: { authorization: 'Bearer x' } },
      );
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'not_configured',
        error: expect.stringContaining('TEMPORAL_CODEC_AUTH_TOKEN'),
      });
    } finally {
      await app.close();
    }
  });
});

// Keeps the proto import honest (the codec serializes whole Payload messages).
it('the codec wraps whole Payload messages', () => {
  const c = codec();
  const enc = c.encodeOne({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('1') });
  const dec = c.decodeOne(enc);
  expect(temporal.api.common.v1.Payload.encode(dec).finish()).toEqual(
    temporal.api.common.v1.Payload.encode({
      metadata: { encoding: Buffer.from('json/plain') },
      data: Buffer.from('1'),
    }).finish(),
  );
});
