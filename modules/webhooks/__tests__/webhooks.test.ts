import type { OutboxDispatcher } from '../../../platform/outbox/dispatcher';
import { WEBHOOK_EVENT_TYPES } from '../event-types';
import type { WebhookRetryInput } from '../webhook-delivery.messages';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { webhookDispatcher } from '../../../test/support/webhook-dispatcher';
import { startReceiver, verifyWith, type Receiver } from '../../../test/support/webhooks';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';
import { redeliverEvents } from '../../../test/support/outbox';

// First attempts, the API and signing; retries through Temporal are in webhook-retries.test.ts.
let app: TestApp;
let t: Tenant;
let receiver: Receiver;
let dispatcher: OutboxDispatcher;
const retriesStarted: WebhookRetryInput[] = [];
const KEY = 'test-encryption-key-for-webhook-secrets';

beforeAll(async () => {
  app = await startTestApp({ OUTBOUND_ALLOW_HOSTS: '127.0.0.1', SECRETS_ENCRYPTION_KEY: KEY });
  t = await app.tenant('Webhooks');
  receiver = await startReceiver();
  // Only failing first attempts reach the retry port; this file checks that it is asked (the engine is tested with
  // Temporal).
  dispatcher = webhookDispatcher(app, [t.workspaceId], {
    retries: { startRetry: async (input) => (retriesStarted.push(input), 'started') },
  });
});
afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
  await app?.close();
});

const create = (http = t.http, body: Record<string, unknown> = {}) =>
  http.post('/api/v1/webhooks/subscriptions', { url: receiver.url, events: ['company.created'], ...body });
async function subscribe(body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await create(t.http, body);
  expect(res.status).toBe(201);
  receiver.secrets = [res.body.data.secret];
  return { id: res.body.data._id, secret: res.body.data.secret };
}
const parsed = (i: number) => JSON.parse(receiver.received[i]!.body);

describe('scope webhooks', () => {
  it('every webhook route answers 403 without the webhooks scope; a webhooks-only key may use them all', async () => {
    const noScope = await app.key(t.workspaceId, ['read', 'write', 'inbound', 'sms', 'export', 'import'], 'owner');
    const routes = app.runtime.routes.filter(
      (r) => r.path.startsWith('/api/v1/webhooks/subscriptions') || r.path.startsWith('/api/v1/webhooks/deliveries'),
    );
    expect(routes.length).toBe(10);
    const id = '0123456789abcdef01234567';
    for (const r of routes) {
      const res = await noScope.request(
        r.method,
        r.path.replace(/:\w+/g, id),
        r.method === 'GET' || r.method === 'DELETE' ? undefined : { url: receiver.url, events: ['*'] },
      );
      expect([r.method, r.path, res.status, res.body.error]).toEqual([
        r.method,
        r.path,
        403,
        expect.stringMatching(/webhooks/),
      ]);
    }
    const only = await app.key(t.workspaceId, ['webhooks'], 'member');
    const made = await create(only);
    expect(made.status).toBe(201);
    expect((await only.get(`/api/v1/webhooks/subscriptions/${made.body.data._id}`)).status).toBe(200);
    expect((await only.delete(`/api/v1/webhooks/subscriptions/${made.body.data._id}`)).status).toBe(200);
  });
});

describe('validation', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['no url', { url: undefined }, /url/],
    ['empty url', { url: '' }, /url/],
    ['a relative url', { url: '/hook' }, /url: must be an absolute URL/],
    ['an ftp url', { url: 'ftp://example.com/hook' }, /url: must be an https URL/],
    ['http to a host not in OUTBOUND_ALLOW_HOSTS', { url: 'http://example.com/hook' }, /url: must use https/],
    ['a private IP literal', { url: 'https://10.1.2.3/hook' }, /url: must not point at a private address/],
    ['loopback not allow-listed (IPv6)', { url: 'https://[::1]/hook' }, /url: must not point at a loopback address/],
    ['localhost', { url: 'https://localhost/hook' }, /url: must not point at localhost/],
    ['url over 2048 characters', { url: `https://example.com/${'a'.repeat(2029)}` }, /url: must be at most 2048/],
    ['no events', { events: undefined }, /events/],
    ['empty events', { events: [] }, /events: must name at least one/],
    ['events as a string', { events: 'company.created' }, /events/],
    ['an unknown event type', { events: ['company.created', 'company.exploded'] }, /events\.1: unknown event type/],
    ['an outbox name instead of a webhook type', { events: ['company_created'] }, /unknown event type/],
    ['101 event types', { events: Array(101).fill('company.created') }, /at most 100 event types/],
    ['name over 200', { name: 'x'.repeat(201) }, /name: must be at most 200/],
    ['active as a string', { active: 'yes' }, /active/],
  ];
  it.each(bad)('POST 400 for %s', async (_label, override, message) => {
    expectError(await create(t.http, override), 400, message);
  });

  it('accepts the limits: a 2048-character url, 100 event types (deduplicated), a 200-character name; "*" stands alone', async () => {
    const url = `https://example.com/${'a'.repeat(2028)}`;
    expect(url.length).toBe(2048);
    const res = await create(t.http, {
      url,
      events: [...Array(99).fill('company.created'), 'deal.won'],
      name: 'n'.repeat(200),
    });
    expectCreated(res, { url, events: ['company.created', 'deal.won'], active: true });
    const all = await create(t.http, { events: ['deal.won', '*'] });
    expect(all.body.data.events).toEqual(['*']);
    // Every documented type, including features still to come (offers, contracts, bookings), is subscribable.
    expect(WEBHOOK_EVENT_TYPES).toEqual(
      expect.arrayContaining([
        'offer.sent',
        'contract.signed',
        'booking.rescheduled',
        'deal.stage_changed',
        'email.bounced',
        'sms.received',
        'sequence.completed',
      ]),
    );
    expect((await create(t.http, { events: [...WEBHOOK_EVENT_TYPES] })).status).toBe(201);
  });

  it('the docs list every event type with the outbox event it comes from', async () => {
    const res = await app.anonymous.get('/api/v1/docs?section=Webhooks');
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    for (const type of WEBHOOK_EVENT_TYPES) expect(text).toContain(type);
    expect(text).toContain('company_created');
    expect(text).toContain('webhook-signature');
  });

  it('PUT validates the same way and is partial', async () => {
    const { id } = await subscribe();
    for (const body of [
      { events: [] },
      { url: null },
      { url: 'http://example.com' },
      { events: ['nope'] },
      { active: 1 },
    ]) {
      const res = await t.http.put(`/api/v1/webhooks/subscriptions/${id}`, body);
      expect([body, res.status]).toEqual([body, 400]);
    }
    const res = await t.http.put(`/api/v1/webhooks/subscriptions/${id}`, { name: 'CRM sync' });
    expectOk(res, {
      name: 'CRM sync',
      url: receiver.url,
      events: ['company.created'],
      active: true,
    });
    expect((await t.http.put(`/api/v1/webhooks/subscriptions/${id}`, { name: null })).body.data.name).toBeNull();
  });
});

describe('secrets', () => {
  it('shown once on create in Standard Webhooks form, masked on every read, encrypted at rest', async () => {
    const res = await create();
    const secret = res.body.data.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    const mask = `whsec_****${secret.slice(-4)}`;
    const one = await t.http.get(`/api/v1/webhooks/subscriptions/${res.body.data._id}`);
    expect(one.body.data.secret).toBe(mask);
    const list = await t.http.get('/api/v1/webhooks/subscriptions?limit=100');
    expect(list.body).toMatchObject({ page: 1, limit: 100, total: expect.any(Number) });
    expect(list.body.data.find((s: any) => s._id === res.body.data._id).secret).toBe(mask);
    expect(JSON.stringify([one.body, list.body])).not.toContain(secret.slice(6));
    const put = await t.http.put(`/api/v1/webhooks/subscriptions/${res.body.data._id}`, { name: 'x' });
    expect(put.body.data.secret).toBe(mask);
    const [row] = await app.runtime.deps.orm.em
      .getConnection()
      .execute(`select secret from webhook_subscription where id = ?`, [res.body.data._id]);
    expect(row.secret).toMatch(/^v1:/);
    expect(row.secret).not.toContain(secret.slice(6));
  });

  it('list envelope and limits', async () => {
    expect((await t.http.get('/api/v1/webhooks/subscriptions?limit=101')).status).toBe(400);
    const res = await t.http.get('/api/v1/webhooks/subscriptions?limit=2&page=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expect.any(Array), page: 2, limit: 2, total: expect.any(Number) });
    expect(res.body.data).toHaveLength(2);
  });
});

describe('deliveries from the outbox', () => {
  // Every test starts without subscriptions (they all point at the one receiver) and with a drained outbox.
  beforeEach(async () => {
    for (const s of (await t.http.get('/api/v1/webhooks/subscriptions?limit=100')).body.data)
      await t.http.delete(`/api/v1/webhooks/subscriptions/${s._id}`);
    await dispatcher.drainOnce();
    receiver.received.length = 0;
    receiver.respond = () => 200;
    retriesStarted.length = 0;
  });

  it('signs every delivery (Standard Webhooks, verified with the standardwebhooks library); body { type, timestamp, data }; in order per record', async () => {
    const { id } = await subscribe({ events: ['company.created', 'company.updated'] });
    const other = await create(t.http, { events: ['deal.won'] });
    const company = (await t.http.post('/api/v1/companies', { name: 'Hooked ApS' })).body.data;
    await t.http.put(`/api/v1/companies/${company._id}`, { name: 'Hooked A/S' });
    await t.http.put(`/api/v1/companies/${company._id}`, { city: 'Aarhus' });
    await dispatcher.drainOnce();
    expect(receiver.received.map((r) => [r.verified, r.answered])).toEqual([
      [true, 200],
      [true, 200],
      [true, 200],
    ]);
    expect([0, 1, 2].map((i) => parsed(i).type)).toEqual(['company.created', 'company.updated', 'company.updated']);
    expect(parsed(0)).toEqual({
      type: 'company.created',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      data: { company: expect.objectContaining({ _id: company._id, name: 'Hooked ApS' }) },
    });
    expect(parsed(1).data.changes).toEqual({ name: { from: 'Hooked ApS', to: 'Hooked A/S' } });
    const h = receiver.received[0]!.headers;
    expect(h['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(Number(h['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(h['content-type']).toBe('application/json');
    const log = await t.http.get(`/api/v1/webhooks/subscriptions/${id}/deliveries`);
    expect(log.body).toMatchObject({ page: 1, limit: 20, total: 3 });
    expect(log.body.data[2]).toMatchObject({
      webhookId: h['webhook-id'],
      eventType: 'company.created',
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      lastDurationMs: expect.any(Number),
      nextAttemptAt: null,
      deliveredAt: expect.any(String),
    });
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${other.body.data._id}/deliveries`)).body.total).toBe(0);
    // Re-delivering the same outbox events sends nothing twice (deliveries are unique per subscription and event).
    await redeliverEvents(app.runtime.deps.orm, t.workspaceId, 'company_%');
    await dispatcher.drainOnce();
    expect(receiver.received).toHaveLength(3);
  });

  it('a tampered body, timestamp or signature fails verification', async () => {
    const { secret } = await subscribe();
    await t.http.post('/api/v1/companies', { name: 'Tamper Inc' });
    await dispatcher.drainOnce();
    const { body, headers } = receiver.received[0]!;
    expect(verifyWith(secret, body, headers)).toBe(true);
    expect(verifyWith(secret, body.replace('Tamper Inc', 'Tamper Ltd'), headers)).toBe(false);
    expect(
      verifyWith(secret, body, {
        ...headers,
        'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1),
      } as never),
    ).toBe(false);
    expect(verifyWith(secret, body, { ...headers, 'webhook-id': 'msg_other' } as never)).toBe(false);
    expect(verifyWith(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, body, headers)).toBe(false);
  });

  it('"*" receives every mapped event; inactive subscriptions receive nothing', async () => {
    const all = await subscribe({ events: ['*'] });
    const off = await create(t.http, { events: ['*'], active: false });
    const lead = (await t.http.post('/api/v1/leads', { title: 'Wildcard' })).body.data;
    await t.http.post('/api/v1/deals', { title: 'Wildcard deal', leadRef: lead._id });
    await dispatcher.drainOnce();
    expect(receiver.received.map((r) => parsed(receiver.received.indexOf(r)).type).sort()).toEqual([
      'deal.created',
      'lead.created',
    ]);
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${off.body.data._id}/deliveries`)).body.total).toBe(0);
    await t.http.delete(`/api/v1/webhooks/subscriptions/${all.id}`);
  });

  it('a failing first attempt is recorded as retrying and handed to the retry engine (ids only)', async () => {
    const { id } = await subscribe();
    receiver.respond = () => 503;
    retriesStarted.length = 0;
    await t.http.post('/api/v1/companies', { name: 'Down Corp' });
    await dispatcher.drainOnce();
    const [d] = (await t.http.get(`/api/v1/webhooks/subscriptions/${id}/deliveries`)).body.data;
    expect(d).toMatchObject({ status: 'retrying', attempts: 1, lastStatusCode: 503, lastError: 'HTTP 503' });
    expect(Date.parse(d.nextAttemptAt) - Date.parse(d.lastAttemptAt)).toBeGreaterThanOrEqual(4000);
    expect(retriesStarted).toEqual([
      {
        workspaceId: t.workspaceId,
        deliveryId: d._id,
        delaysMs: [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
        jitter: 0.1,
      },
    ]);
    await t.http.delete(`/api/v1/webhooks/subscriptions/${id}`);
  });

  it('the guarded client refuses a private target that is not allow-listed (checked on every delivery)', async () => {
    const { id } = await subscribe();
    const strict = webhookDispatcher(app, [t.workspaceId], {
      config: { ...app.config, outboundAllowHosts: [] },
      retries: { startRetry: async (input) => (retriesStarted.push(input), 'started') },
    });
    await t.http.post('/api/v1/companies', { name: 'Private Target' });
    await strict.drainOnce();
    await strict.stop();
    expect(receiver.received).toHaveLength(0);
    const [d] = (await t.http.get(`/api/v1/webhooks/subscriptions/${id}/deliveries`)).body.data;
    expect(d).toMatchObject({
      status: 'retrying',
      attempts: 1,
      lastStatusCode: null,
      lastError: expect.stringMatching(/refusing to fetch .*127\.0\.0\.1 is a loopback address/),
    });
  });

  it('410 Gone disables the subscription with a reason; re-activating clears it', async () => {
    const { id } = await subscribe();
    receiver.respond = () => 410;
    retriesStarted.length = 0;
    await t.http.post('/api/v1/companies', { name: 'Gone GmbH' });
    await dispatcher.drainOnce();
    const sub = (await t.http.get(`/api/v1/webhooks/subscriptions/${id}`)).body.data;
    expect(sub).toMatchObject({
      active: false,
      disabledReason: expect.stringContaining('410'),
      disabledAt: expect.any(String),
    });
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${id}/deliveries`)).body.data[0]).toMatchObject({
      status: 'failed',
      lastStatusCode: 410,
      nextAttemptAt: null,
    });
    expect(retriesStarted).toEqual([]);
    await t.http.post('/api/v1/companies', { name: 'Still gone' });
    await dispatcher.drainOnce();
    expect(receiver.received).toHaveLength(1);
    const again = await t.http.put(`/api/v1/webhooks/subscriptions/${id}`, { active: true });
    expect(again.body.data).toMatchObject({
      active: true,
      disabledReason: null,
      disabledAt: null,
      failedDeliveriesInRow: 0,
    });
    await t.http.delete(`/api/v1/webhooks/subscriptions/${id}`);
  });
});

describe('test event, replay, rotation', () => {
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => 200;
  });

  it('POST /test sends a signed webhook.test and answers with the delivery', async () => {
    const { id } = await subscribe({ events: ['deal.won'], active: false });
    const res = await t.http.post(`/api/v1/webhooks/subscriptions/${id}/test`);
    expectOk(res, {
      eventType: 'webhook.test',
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
    });
    expect(receiver.received[0]!.verified).toBe(true);
    expect(parsed(0)).toMatchObject({ type: 'webhook.test', data: { subscriptionId: id } });
    expect(receiver.received[0]!.headers['webhook-id']).toBe(res.body.data.webhookId);
    receiver.respond = () => 500;
    const failed = await t.http.post(`/api/v1/webhooks/subscriptions/${id}/test`);
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: null,
    });
  });

  it('replay sends the same webhook-id and body again, newly signed', async () => {
    const { id } = await subscribe();
    await t.http.post('/api/v1/companies', { name: 'Replay AB' });
    await dispatcher.drainOnce();
    const [d] = (await t.http.get(`/api/v1/webhooks/subscriptions/${id}/deliveries`)).body.data;
    const res = await t.http.post(`/api/v1/webhooks/subscriptions/${id}/deliveries/${d._id}/replay`);
    expectOk(res, { _id: d._id, status: 'delivered', attempts: 2 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(receiver.received[1]!.verified).toBe(true);
    // A delivery of another subscription is not found under this one.
    const other = await subscribe();
    expect((await t.http.post(`/api/v1/webhooks/subscriptions/${other.id}/deliveries/${d._id}/replay`)).status).toBe(
      404,
    );
    await t.http.put(`/api/v1/webhooks/subscriptions/${id}`, { active: false });
    expect((await t.http.post(`/api/v1/webhooks/subscriptions/${id}/deliveries/${d._id}/replay`)).status).toBe(409);
    await t.http.delete(`/api/v1/webhooks/subscriptions/${other.id}`);
  });

  it('rotation: a new secret shown once; both signatures sent during the 24-hour overlap, each verifies', async () => {
    const { id, secret: oldSecret } = await subscribe();
    const res = await t.http.post(`/api/v1/webhooks/subscriptions/${id}/rotate-secret`);
    expect(res.status).toBe(200);
    const newSecret = res.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const overlapMs = Date.parse(res.body.data.previousSecretExpiresAt) - Date.now();
    expect(overlapMs).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3600_000);
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${id}`)).body.data.secret).toBe(
      `whsec_****${newSecret.slice(-4)}`,
    );
    receiver.secrets = [oldSecret, newSecret];
    await t.http.post(`/api/v1/webhooks/subscriptions/${id}/test`);
    const sigs = String(receiver.received[0]!.headers['webhook-signature']).split(' ');
    expect(sigs).toHaveLength(2);
    expect(receiver.received[0]!.verifiedWith).toEqual([0, 1]);
    // After the overlap only the new secret signs.
    await app.runtime.deps.orm.em
      .getConnection()
      .execute(
        `update webhook_subscription set previous_secret_expires_at = now() - interval '1 second' where id = ?`,
        [id],
      );
    await t.http.post(`/api/v1/webhooks/subscriptions/${id}/test`);
    expect(receiver.received[1]!.verifiedWith).toEqual([1]);
    expect(String(receiver.received[1]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('DELETE removes the subscription and its deliveries', async () => {
    const { id } = await subscribe();
    await t.http.post(`/api/v1/webhooks/subscriptions/${id}/test`);
    const [d] = (await t.http.get(`/api/v1/webhooks/subscriptions/${id}/deliveries`)).body.data;
    expect((await t.http.get(`/api/v1/webhooks/deliveries/${d._id}`)).status).toBe(200);
    expect(await t.http.delete(`/api/v1/webhooks/subscriptions/${id}`)).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect((await t.http.get(`/api/v1/webhooks/subscriptions/${id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/webhooks/deliveries/${d._id}`)).status).toBe(404);
  });
});
