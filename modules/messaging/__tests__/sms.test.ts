import { loadEntityContext } from '../../automations/engine/context';
import { OutboundMessage } from '../outbound-message.entity';
import { SmsMessage } from '../sms-message.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { isPublic } from '../../../platform/http/registry';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { eventsFor } from '../../../test/support/outbox';
import { uniquePhone } from '../../../test/support/sms';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';
import { withTenantOfApp } from '../../../test/support/suites';

// The SMS API against the real app, Postgres and Temporal, with a local HTTP gateway.
let app: TestApp;
let gateway: LocalHttp;
let t: Tenant;
let gatewayId = 0;

beforeAll(async () => {
  gateway = await startHttp();
  app = await startTestApp({
    SMS_GATEWAY_URL: `${gateway.url}/sms`,
    SMS_GATEWAY_TOKEN: 'gw-token',
    SMS_DEFAULT_FROM: 'Acme',
    SMS_DEFAULT_COUNTRY_CODE: '45',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });
  t = await app.tenant('SMS');
}, 30_000);
afterAll(async () => {
  await app?.close();
  await gateway?.close();
});
beforeEach(() => {
  gateway.requests.length = 0;
  gateway.respond((_req, res) => json(200, { id: `gw-${++gatewayId}`, status: 'queued' })(_req, res));
});

const rows = (workspaceId: string) =>
  forkForWorkspace(app.runtime.deps.orm.em, workspaceId).find(
    SmsMessage,
    {},
    { orderBy: { createdAt: 'asc', _id: 'asc' } },
  );
const national = (e164: string) => e164.slice(3); // +45 dropped: the crm-connect rule still matches it
async function person(http = t.http, phone = uniquePhone()) {
  const res = await http.post('/api/v1/people', {
    firstName: 'Ann',
    lastName: 'Texter',
    phones: [{ phone, label: 'mobile' }],
  });
  expect(res.status).toBe(201);
  return { id: res.body.data._id as string, phone };
}
async function webhookSecret(http = t.http): Promise<string> {
  const res = await http.post('/api/v1/sms/webhook-secret');
  expect(res.status).toBe(201);
  return res.body.data.secret as string;
}
const hook = (workspaceId: string, body: unknown, secret?: string) =>
  app.anonymous.post(`/api/webhooks/sms/${workspaceId}`, body, {
    headers: secret === undefined ? {} : { 'x-webhook-secret': secret },
  });

describe('scope sms', () => {
  it('a key without the sms scope (read, write) gets 403 on every SMS route', async () => {
    const key = await app.key(t.workspaceId, ['read', 'write', 'inbound', 'webhooks', 'export', 'import'], 'owner');
    const smsRoutes = app.runtime.routes.filter(
      (r) =>
        !isPublic(r.access) &&
        (r.path.startsWith('/api/v1/sms/') || r.path === '/api/v1/sms' || r.path.startsWith('/api/v1/sms-templates')),
    );
    expect(smsRoutes.length).toBeGreaterThanOrEqual(18);
    const wrong: string[] = [];
    for (const r of smsRoutes) {
      const path = r.path.replace(':phoneNumber', '+4512345678').replace(/:\w+/g, '0123456789abcdef01234567');
      const res = await key.request(
        r.method,
        path,
        r.method === 'GET' || r.method === 'DELETE' ? undefined : { to: '+4512345678', message: 'x' },
      );
      if (res.status !== 403) wrong.push(`${r.method} ${r.path}: ${res.status}`);
    }
    expect(wrong).toEqual([]);
    expect(gateway.requests).toHaveLength(0);
  });

  it('a key with only sms can use them (read is not needed)', async () => {
    const key = await app.key(t.workspaceId, ['sms']);
    expect((await key.get('/api/v1/sms')).status).toBe(200);
    expect((await key.get('/api/v1/sms/threads')).status).toBe(200);
    expect((await key.get('/api/v1/sms-templates')).status).toBe(200);
    expect((await key.post('/api/v1/sms', { to: uniquePhone(), message: 'hi' })).status).toBe(201);
  });
});

describe('POST /sms', () => {
  it('sends through the gateway, stores one SMS linked to the contact of the number, emits sms_sent', async () => {
    const p = await person();
    const res = await t.http.post('/api/v1/sms', { to: national(p.phone), message: 'Hej Ann' });
    const sms = expectCreated(res, {
      direction: 'outbound',
      to: p.phone,
      from: 'Acme',
      body: 'Hej Ann',
      status: 'sent',
      unread: false,
      starred: false,
      phoneNumber: p.phone,
      personId: p.id,
      source: 'api',
    });
    expect(sms.providerMessageId).toMatch(/^gw-/);
    expect(gateway.requests).toHaveLength(1);
    expect(JSON.parse(gateway.requests[0]!.body)).toEqual({ to: p.phone, from: 'Acme', message: 'Hej Ann' });
    expect(gateway.requests[0]!.headers['idempotency-key']).toBe(sms._id);
    // One visible record per message; the claim row (idempotency) shares its id.
    const claim = await forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId).findOne(OutboundMessage, {
      _id: sms._id,
    });
    expect(claim).toMatchObject({ channel: 'sms', status: 'sent' });
    const events = await eventsFor(app.runtime.deps.orm, sms._id);
    expect(events.map((e) => e.type)).toEqual(['sms_sent']);
    expect(events[0]).toMatchObject({
      entity_type: 'sms',
      payload: {
        sms: { _id: sms._id, from: 'Acme', to: p.phone, body: 'Hej Ann' },
        links: { personId: p.id },
        source: 'api',
      },
    });
    expect((await t.http.get(`/api/v1/sms/${sms._id}`)).body.data).toEqual(sms);
  });

  it('an idempotencyKey (body or header) sends once and answers the same SMS', async () => {
    const to = uniquePhone();
    const first = await t.http.post('/api/v1/sms', { to, message: 'once', idempotencyKey: `k-${to}` });
    const again = await t.http.post('/api/v1/sms', { to, message: 'once', idempotencyKey: `k-${to}` });
    expect(first.status).toBe(201);
    expect(again.body.data._id).toBe(first.body.data._id);
    const h1 = await t.http.post(
      '/api/v1/sms',
      { to, message: 'header' },
      { headers: { 'idempotency-key': `h-${to}` } },
    );
    const h2 = await t.http.post(
      '/api/v1/sms',
      { to, message: 'header' },
      { headers: { 'idempotency-key': `h-${to}` } },
    );
    expect(h2.body.data._id).toBe(h1.body.data._id);
    expect(gateway.requests).toHaveLength(2);
  });

  it.each([
    [{ message: 'x' }, 'to'],
    [{ to: '+4512345678' }, 'message'],
    [{ to: 'not a number', message: 'x' }, 'to'],
    [{ to: '+4512345678', message: 'x'.repeat(1601) }, 'message'],
    [{ to: '+4512345678', message: '   ' }, 'message'],
    [{ to: '+4512345678', message: 'x', from: 'TwelveChars1' }, 'from'],
    [{ to: '+4512345678', message: 'x', personId: 'nope' }, 'personId'],
    [{ to: '+4512345678', message: 'x', personId: '0123456789abcdef01234567' }, 'personId'],
  ])('400 for %j (%s), nothing sent', async (body, field) => {
    const res = await t.http.post('/api/v1/sms', body);
    expectError(res, 400, field);
    expect(gateway.requests).toHaveLength(0);
  });

  it('accepts exactly 1600 characters', async () => {
    expect((await t.http.post('/api/v1/sms', { to: uniquePhone(), message: 'é'.repeat(1600) })).status).toBe(201);
  });

  it('a gateway refusal is 502 and the SMS is kept as failed', async () => {
    gateway.respond(json(422, { error: 'invalid destination' }));
    const to = uniquePhone();
    const res = await t.http.post('/api/v1/sms', { to, message: 'refused' });
    expectError(res, 502, 'invalid destination');
    const list = await t.http.get(`/api/v1/sms?phoneNumber=${encodeURIComponent(to)}`);
    expect(list.body.data).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.stringContaining('invalid destination') }),
    ]);
  });

  it('without a gateway: 503 not_configured naming the variables, nothing stored', async () => {
    const bare = { SMS_GATEWAY_URL: '', SMS_GATEWAY_TOKEN: '' };
    await withTenantOfApp(bare, async (u) => {
      for (const [path, body] of [
        ['/api/v1/sms', { to: '+4512345678', message: 'x' }],
        ['/api/v1/sms/bulk', { message: 'x', recipients: ['+4512345678'] }],
        [
          '/api/v1/sms/schedule',
          { to: '+4512345678', message: 'x', sendAt: new Date(Date.now() + 60_000).toISOString() },
        ],
      ] as const) {
        const res = await u.http.post(path, body);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ code: 'not_configured', error: expect.stringContaining('SMS_GATEWAY_URL') });
        expect(res.body.error).toContain('SMS_GATEWAY_TOKEN');
      }
      expect(await rows(u.workspaceId)).toEqual([]);
      expect((await u.http.get('/api/v1/sms/scheduled')).body.total).toBe(0);
    });
  });
});

describe('GET /sms (strict list) and GET|PUT /sms/:id', () => {
  let u: Tenant;
  let p: { id: string; phone: string };
  let ids: Record<string, string>;
  beforeAll(async () => {
    u = await app.tenant('SMS list');
    p = await person(u.http);
    const secret = await webhookSecret(u.http);
    ids = {
      out: (await u.http.post('/api/v1/sms', { to: p.phone, message: 'out' })).body.data._id,
      in1: (await hook(u.workspaceId, { from: p.phone, message: 'in one' }, secret)).body.data.sms._id,
      other: (await u.http.post('/api/v1/sms', { to: uniquePhone(), message: 'other' })).body.data._id,
    };
  });

  it('lists newest first with page/limit/total; view=summary', async () => {
    const res = await u.http.get('/api/v1/sms?limit=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(res.body.data.map((m: any) => m._id)).toEqual([ids.other, ids.in1]);
    const summary = await u.http.get('/api/v1/sms?view=summary&limit=1');
    expect(Object.keys(summary.body.data[0]).sort()).toEqual(
      ['_id', 'body', 'createdAt', 'direction', 'from', 'phoneNumber', 'starred', 'status', 'to', 'unread'].sort(),
    );
  });

  it.each([
    ['direction=inbound', ['in1']],
    ['direction=outbound', ['other', 'out']],
    ['unread=true', ['in1']],
    ['unread=false', ['other', 'out']],
  ])('filter %s', async (q, expected) => {
    const res = await u.http.get(`/api/v1/sms?${q}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: any) => m._id)).toEqual(expected.map((k) => ids[k]));
  });

  it('phoneNumber matches by the crm-connect rule (national form too), personId by link, dates by createdAt', async () => {
    for (const phone of [
      p.phone,
      national(p.phone),
      `00${p.phone.slice(1)}`,
      `${p.phone.slice(0, 3)} ${p.phone.slice(3, 7)} ${p.phone.slice(7)}`,
    ]) {
      const res = await u.http.get(`/api/v1/sms?phoneNumber=${encodeURIComponent(phone)}`);
      expect(res.body.data.map((m: any) => m._id)).toEqual([ids.in1, ids.out]);
    }
    expect((await u.http.get(`/api/v1/sms?personId=${p.id}`)).body.data.map((m: any) => m._id)).toEqual([
      ids.in1,
      ids.out,
    ]);
    expect((await u.http.get('/api/v1/sms?dateTo=2000-01-01')).body.total).toBe(0);
    expect((await u.http.get(`/api/v1/sms?dateFrom=${new Date(Date.now() - 60_000).toISOString()}`)).body.total).toBe(
      3,
    );
    expect(
      (await u.http.get(`/api/v1/sms?updatedSince=${new Date(Date.now() + 60_000).toISOString()}`)).body.total,
    ).toBe(0);
  });

  it.each([
    'foo=1',
    'direction=sideways',
    'unread=yes',
    'starred=1',
    'limit=101',
    'limit=0',
    'page=0',
    'phoneNumber=abc',
    'personId=nope',
    'dateFrom=yesterday',
    'view=everything',
    'sortBy=createdAt',
  ])('400 for ?%s', async (q) => {
    expectError(await u.http.get(`/api/v1/sms?${q}`), 400);
  });

  it('limit=100 is accepted', async () => {
    expect((await u.http.get('/api/v1/sms?limit=100')).status).toBe(200);
  });

  it('PUT flags unread and starred only', async () => {
    const res = await u.http.put(`/api/v1/sms/${ids.in1}`, { unread: false, starred: true });
    expectOk(res, { _id: ids.in1, unread: false, starred: true, body: 'in one' });
    expect((await u.http.get('/api/v1/sms?starred=true')).body.data.map((m: any) => m._id)).toEqual([ids.in1]);
    for (const body of [
      {},
      { body: 'changed', unread: true },
      { status: 'delivered', starred: false },
      { unread: 'no' },
      { starred: null },
    ]) {
      const bad = await u.http.put(`/api/v1/sms/${ids.in1}`, body);
      expect(bad.status).toBe(400);
    }
    expect((await u.http.get(`/api/v1/sms/${ids.in1}`)).body.data).toMatchObject({
      unread: false,
      starred: true,
      body: 'in one',
      status: 'received',
    });
    await u.http.put(`/api/v1/sms/${ids.in1}`, { unread: true });
  });

  it('malformed or unknown ids are 404', async () => {
    for (const id of ['nope', '0123456789abcdef01234567', 'ZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      expect((await u.http.get(`/api/v1/sms/${id}`)).status).toBe(404);
      expect((await u.http.put(`/api/v1/sms/${id}`, { unread: false })).status).toBe(404);
    }
  });
});

describe('gateway webhook', () => {
  it('no secret set, missing or wrong secret: 401 and nothing stored; unknown workspace 404', async () => {
    const u = await app.tenant('SMS hook auth');
    const body = { from: uniquePhone(), message: 'hi' };
    expect((await hook(u.workspaceId, body, 'anything')).status).toBe(401);
    const secret = await webhookSecret(u.http);
    expect(secret).toMatch(/^smswh_/);
    for (const wrong of [undefined, '', 'smswh_wrong', secret.slice(0, -1), `${secret}x`]) {
      expectError(await hook(u.workspaceId, body, wrong), 401);
    }
    expect(await rows(u.workspaceId)).toEqual([]);
    expect((await hook('0123456789abcdef01234567', body, secret)).status).toBe(404);
    expect((await hook('not-an-id', body, secret)).status).toBe(404);
    // Another workspace's secret does not open this one.
    const other = await app.tenant('SMS hook other');
    expect((await hook(u.workspaceId, body, await webhookSecret(other.http))).status).toBe(401);
    // Rotating replaces the old secret.
    const rotated = await webhookSecret(u.http);
    expect((await hook(u.workspaceId, body, secret)).status).toBe(401);
    expect((await hook(u.workspaceId, body, rotated)).status).toBe(200);
    const status = await u.http.get('/api/v1/sms/webhook');
    expect(status.body.data).toEqual({
      url: expect.stringContaining(`/api/webhooks/sms/${u.workspaceId}`),
      secretSet: true,
      secretHint: `****${rotated.slice(-4)}`,
    });
    expect(JSON.stringify(status.body)).not.toContain(rotated);
  });

  it('the secret is managed by owners/admins only', async () => {
    const member = await app.key(t.workspaceId, ['sms'], 'member');
    expect((await member.post('/api/v1/sms/webhook-secret')).status).toBe(403);
    expect((await member.get('/api/v1/sms/webhook')).status).toBe(403);
  });

  it('inbound: stored unread, contact resolved by the phone rule, sms_received and (after our SMS) sms_replied', async () => {
    const u = await app.tenant('SMS inbound');
    const secret = await webhookSecret(u.http);
    const p = await person(u.http);
    const first = await hook(
      u.workspaceId,
      { from: national(p.phone), to: '+4570000000', message: 'Who is this?', id: 'in-1' },
      secret,
    );
    expect(first.status).toBe(200);
    const sms = first.body.data.sms;
    expect(sms).toMatchObject({
      direction: 'inbound',
      from: national(p.phone),
      body: 'Who is this?',
      status: 'received',
      unread: true,
      personId: p.id,
      providerMessageId: 'in-1',
    });
    expect(first.body.data.contact).toEqual({ entityType: 'person', _id: p.id, name: 'Ann Texter' });
    expect((await eventsFor(app.runtime.deps.orm, sms._id)).map((e) => e.type)).toEqual(['sms_received']);
    // Re-delivery of the same gateway id: stored once, no new events.
    const again = await hook(u.workspaceId, { from: national(p.phone), message: 'Who is this?', id: 'in-1' }, secret);
    expect(again.body.data).toMatchObject({ duplicate: true, sms: { _id: sms._id } });
    expect(await rows(u.workspaceId)).toHaveLength(1);

    const ours = (await u.http.post('/api/v1/sms', { to: p.phone, message: 'It is Acme', idempotencyKey: 'seq-1' }))
      .body.data;
    const reply = (await hook(u.workspaceId, { from: p.phone, text: 'Thanks STOP', messageId: 77 }, secret)).body.data
      .sms;
    const events = await eventsFor(app.runtime.deps.orm, reply._id);
    expect(events.map((e) => e.type)).toEqual(['sms_received', 'sms_replied']);
    expect(events[0]!.payload).toEqual({
      sms: { _id: reply._id, from: p.phone, to: '', body: 'Thanks STOP' },
      links: { personId: p.id },
    });
    expect(events[1]!.payload).toMatchObject({
      sms: { _id: reply._id },
      links: { personId: p.id },
      inReplyTo: { smsId: ours._id, source: 'api' },
    });
    // Automations started by sms_received see the message and its contact (contact.*, sms.*).
    const context = await loadEntityContext(forkForWorkspace(app.runtime.deps.orm.em, u.workspaceId), 'sms', reply._id);
    expect(context).toMatchObject({
      sms: { body: 'Thanks STOP', from: p.phone },
      contact: { _id: p.id, firstName: 'Ann' },
    });
    // The reply shows on the person's timeline.
    const feed = await u.http.get(`/api/v1/activities?personId=${p.id}&type=sms`);
    expect(feed.body.data.map((a: any) => a.summary)).toEqual(
      expect.arrayContaining([`SMS from ${p.phone}`, `SMS to ${p.phone}`]),
    );
  });

  it('an unknown number is stored without contact; bad bodies are 400 and store nothing', async () => {
    const u = await app.tenant('SMS inbound unknown');
    const secret = await webhookSecret(u.http);
    const res = await hook(u.workspaceId, { from: '+4599999999', message: 'hello?' }, secret);
    expect(res.body.data).toMatchObject({ contact: null, sms: { personId: null, companyId: null, leadId: null } });
    for (const body of [
      {},
      { from: '+4599999999' },
      { message: 'x' },
      { from: 'abc', message: 'x' },
      { type: 'delivery_report', id: 'x', status: 'exploded' },
      { type: 'delivery_report', status: 'delivered' },
      [],
    ]) {
      expect((await hook(u.workspaceId, body, secret)).status).toBe(400);
    }
    expect(await rows(u.workspaceId)).toHaveLength(1);
  });

  it('delivery reports update the status by our reference or the gateway id; a late "sent" never undoes delivered', async () => {
    const u = await app.tenant('SMS reports');
    const secret = await webhookSecret(u.http);
    const a = (await u.http.post('/api/v1/sms', { to: uniquePhone(), message: 'a' })).body.data;
    const b = (await u.http.post('/api/v1/sms', { to: uniquePhone(), message: 'b' })).body.data;
    expect(
      (await hook(u.workspaceId, { type: 'delivery_report', reference: a._id, status: 'DELIVERED' }, secret)).body.data,
    ).toMatchObject({ matched: true, sms: { status: 'delivered' } });
    await hook(u.workspaceId, { type: 'delivery_report', reference: a._id, status: 'sent' }, secret);
    const got = (await u.http.get(`/api/v1/sms/${a._id}`)).body.data;
    expect(got.status).toBe('delivered');
    expect(got.deliveredAt).toEqual(expect.any(String));
    await hook(
      u.workspaceId,
      { type: 'status', id: b.providerMessageId, status: 'undelivered', error: 'handset off' },
      secret,
    );
    expect((await u.http.get(`/api/v1/sms/${b._id}`)).body.data).toMatchObject({
      status: 'failed',
      error: 'handset off',
    });
    await hook(u.workspaceId, { type: 'status', id: b.providerMessageId, status: 'accepted' }, secret);
    expect((await u.http.get(`/api/v1/sms/${b._id}`)).body.data.status).toBe('failed');
    expect(
      (await hook(u.workspaceId, { type: 'delivery_report', id: 'unknown-id', status: 'delivered' }, secret)).body.data,
    ).toEqual({ matched: false });
    expect(
      (await hook(u.workspaceId, { type: 'delivery_report', id: b.providerMessageId, status: 'delivered' }, 'wrong'))
        .status,
    ).toBe(401);
  });
});

describe('threads', () => {
  let u: Tenant;
  let p: { id: string; phone: string };
  let stranger: string;
  let secret: string;
  beforeAll(async () => {
    u = await app.tenant('SMS threads');
    secret = await webhookSecret(u.http);
    p = await person(u.http);
    stranger = uniquePhone();
    await u.http.post('/api/v1/sms', { to: p.phone, message: 'one' });
    await hook(u.workspaceId, { from: p.phone, message: 'two' }, secret);
    await hook(u.workspaceId, { from: p.phone, message: 'three' }, secret);
    await u.http.post('/api/v1/sms', { to: stranger, message: 'hello stranger' });
  });

  it.each(['threads', 'conversations'])(
    'GET /sms/%s: one row per number, last message, unread count, resolved contact',
    async (path) => {
      const res = await u.http.get(`/api/v1/sms/${path}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, limit: 20, total: 2 });
      expect(res.body.data).toEqual([
        expect.objectContaining({
          phoneNumber: stranger,
          messageCount: 1,
          unreadCount: 0,
          contact: null,
          lastMessage: expect.objectContaining({ body: 'hello stranger' }),
        }),
        expect.objectContaining({
          phoneNumber: p.phone,
          messageCount: 3,
          unreadCount: 2,
          contact: { entityType: 'person', _id: p.id, name: 'Ann Texter' },
          lastMessage: expect.objectContaining({ body: 'three', direction: 'inbound' }),
        }),
      ]);
      expect((await u.http.get(`/api/v1/sms/${path}?unread=true`)).body.data.map((r: any) => r.phoneNumber)).toEqual([
        p.phone,
      ]);
      expect((await u.http.get(`/api/v1/sms/${path}?limit=1&page=2`)).body.data.map((r: any) => r.phoneNumber)).toEqual(
        [p.phone],
      );
      expect((await u.http.get(`/api/v1/sms/${path}?bogus=1`)).status).toBe(400);
      expect((await u.http.get(`/api/v1/sms/${path}?limit=101`)).status).toBe(400);
    },
  );

  it('GET /sms/threads/:phoneNumber: messages (newest first) plus the contact, in any written form of the number', async () => {
    for (const form of [p.phone, national(p.phone), `00${p.phone.slice(1)}`]) {
      const res = await u.http.get(`/api/v1/sms/threads/${encodeURIComponent(form)}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        total: 3,
        data: { phoneNumber: expect.any(String), unreadCount: 2, contact: { _id: p.id } },
      });
      expect(res.body.data.messages.map((m: any) => m.body)).toEqual(['three', 'two', 'one']);
    }
    expect(
      (await u.http.get(`/api/v1/sms/threads/${encodeURIComponent(p.phone)}?limit=1`)).body.data.messages.map(
        (m: any) => m.body,
      ),
    ).toEqual(['three']);
    expect((await u.http.get('/api/v1/sms/threads/%2B4511111111')).status).toBe(404);
    expect((await u.http.get('/api/v1/sms/threads/not-a-number')).status).toBe(404);
  });

  it('PUT /sms/threads/:phoneNumber { unread: false } marks the inbound messages read', async () => {
    const path = `/api/v1/sms/threads/${encodeURIComponent(national(p.phone))}`;
    expect((await u.http.put(path, { unread: 'no' })).status).toBe(400);
    expect((await u.http.put(path, {})).status).toBe(400);
    const res = await u.http.put(path, { unread: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ phoneNumber: national(p.phone), updated: 2, unreadCount: 0 });
    expect((await u.http.get('/api/v1/sms?unread=true')).body.total).toBe(0);
    expect((await u.http.put(path, { unread: true })).body.data).toMatchObject({ updated: 1, unreadCount: 1 });
    expect((await u.http.get('/api/v1/sms?unread=true')).body.data.map((m: any) => m.body)).toEqual(['three']);
    expect((await u.http.put('/api/v1/sms/threads/%2B4511111111', { unread: false })).status).toBe(404);
  });
});

describe('POST /sms/bulk', () => {
  it('500 recipients (the maximum) pass the boundary: each gets its own result', async () => {
    // Every recipient lacks its placeholder value, so the 500 results come back without 500 sends.
    const recipients = Array.from({ length: 500 }, (_, i) => ({ to: `+4560${String(i).padStart(6, '0')}` }));
    const res = await t.http.post('/api/v1/sms/bulk', { message: 'Hi {{name}}', recipients });
    expect(res.status).toBe(201);
    expect(res.body.data.summary).toEqual({ total: 500, sent: 0, failed: 500 });
    expect(res.body.data.results[499]).toMatchObject({
      index: 499,
      to: '+4560000499',
      status: 'failed',
      error: expect.stringContaining('{{name}}'),
    });
    expect(gateway.requests).toHaveLength(0);
  });

  it('each recipient is sent once; a retry with the same idempotencyKey sends nothing new', async () => {
    const u = await app.tenant('SMS bulk send');
    const recipients = Array.from({ length: 30 }, (_, i) => `+4561${String(i).padStart(6, '0')}`);
    const res = await u.http.post('/api/v1/sms/bulk', { message: 'Sale!', recipients, idempotencyKey: 'campaign-1' });
    expect(res.status).toBe(201);
    expect(res.body.data.summary).toEqual({ total: 30, sent: 30, failed: 0 });
    expect(res.body.data.bulkId).toBe('campaign-1');
    expect(res.body.data.results.map((r: any) => r.to)).toEqual(recipients);
    expect(new Set(gateway.requests.map((r) => JSON.parse(r.body).to)).size).toBe(30);
    const again = await u.http.post(
      '/api/v1/sms/bulk',
      { message: 'Sale!', recipients },
      { headers: { 'idempotency-key': 'campaign-1' } },
    );
    expect(again.body.data.summary).toEqual({ total: 30, sent: 30, failed: 0 });
    expect(again.body.data.results.every((r: any) => r.replayed === true)).toBe(true);
    expect(again.body.data.results.map((r: any) => r.smsId)).toEqual(res.body.data.results.map((r: any) => r.smsId));
    expect(gateway.requests).toHaveLength(30);
    expect((await u.http.get('/api/v1/sms')).body.total).toBe(30);
  }, 120_000);

  it('501 recipients is 400 and sends nothing', async () => {
    const recipients = Array.from({ length: 501 }, () => '+4512345678');
    const res = await t.http.post('/api/v1/sms/bulk', { message: 'x', recipients });
    expectError(res, 400, 'at most 500');
    expect(gateway.requests).toHaveLength(0);
  });

  it('per-recipient messages and placeholders; a bad recipient fails alone', async () => {
    const u = await app.tenant('SMS bulk mixed');
    const ok1 = uniquePhone();
    const ok2 = uniquePhone();
    const res = await u.http.post('/api/v1/sms/bulk', {
      message: 'Hi {{ firstName }}, your code is {{code}}',
      recipients: [
        { to: ok1, placeholders: { firstName: 'Ann', code: 42 } },
        { phone: ok2, message: 'Custom for you' },
        { to: 'nonsense', placeholders: { firstName: 'X', code: 1 } },
        { to: uniquePhone(), placeholders: { firstName: 'NoCode' } },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.summary).toEqual({ total: 4, sent: 2, failed: 2 });
    const [r0, r1, r2, r3] = res.body.data.results;
    expect(r0).toMatchObject({ index: 0, status: 'sent', to: ok1 });
    expect(r1).toMatchObject({ index: 1, status: 'sent', to: ok2 });
    expect(r2).toMatchObject({ index: 2, status: 'failed', code: 'validation', error: expect.stringContaining('to') });
    expect(r3).toMatchObject({ index: 3, status: 'failed', error: expect.stringContaining('{{code}}') });
    expect(gateway.requests.map((r) => JSON.parse(r.body).message).sort()).toEqual([
      'Custom for you',
      'Hi Ann, your code is 42',
    ]);
  });

  it.each([
    [{ recipients: ['+4512345678'] }, 'message'],
    [{ message: 'x', recipients: [] }, 'recipient'],
    [{ message: 'x' }, 'recipients'],
    [{ recipients: [{ to: '+4512345678' }] }, 'message'],
    [{ message: 'x', recipients: [{ message: 'y' }] }, 'to'],
    [{ message: 'x', recipients: [42] }, 'recipients'],
  ])('400 for %j', async (body, field) => {
    const res = await t.http.post('/api/v1/sms/bulk', body);
    expectError(res, 400, field);
    expect(gateway.requests).toHaveLength(0);
  });
});

describe('scheduled SMS (API side; the timer is tested in sms-scheduled.test.ts)', () => {
  it('schedules one workflow per SMS, lists it, cancels it (409 the second time)', async () => {
    const u = await app.tenant('SMS schedule');
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await u.http.post('/api/v1/sms/schedule', { to: '12 34 56 78', message: 'Reminder', sendAt });
    expect(res.status).toBe(201);
    const s = res.body.data;
    expect(s).toMatchObject({
      to: '+4512345678',
      from: 'Acme',
      message: 'Reminder',
      status: 'scheduled',
      sendAt,
      workflowId: `sms-scheduled:${u.workspaceId}:${s._id}`,
    });
    const wf = await app.runtime.deps.temporal.workflow.getHandle(s.workflowId).describe();
    expect(wf.status.name).toBe('RUNNING');
    expect(wf.type).toBe('scheduledSmsWorkflow');
    expect(JSON.stringify(wf.searchAttributes)).toContain(u.workspaceId);
    const history = JSON.stringify(
      (await app.runtime.deps.temporal.workflow.getHandle(s.workflowId).fetchHistory()).events?.[0],
    );
    expect(history).not.toContain('Reminder');

    const list = await u.http.get('/api/v1/sms/scheduled');
    expect(list.body).toMatchObject({ total: 1, data: [{ _id: s._id, status: 'scheduled' }] });
    expect((await u.http.get('/api/v1/sms/scheduled?status=cancelled')).body.total).toBe(0);
    expect((await u.http.get('/api/v1/sms/scheduled?status=nope')).status).toBe(400);
    expect((await u.http.get('/api/v1/sms/scheduled?foo=1')).status).toBe(400);

    const cancel = await u.http.delete(`/api/v1/sms/scheduled/${s._id}`);
    expectOk(cancel, { _id: s._id, status: 'cancelled', cancelledAt: expect.any(String) });
    // The workflow's cancellation with a worker polling is checked in sms-scheduled.test.ts.
    const again = await u.http.delete(`/api/v1/sms/scheduled/${s._id}`);
    expectError(again, 409, 'already cancelled');
    expect((await u.http.delete('/api/v1/sms/scheduled/0123456789abcdef01234567')).status).toBe(404);
    expect((await u.http.delete('/api/v1/sms/scheduled/nope')).status).toBe(404);
    expect(gateway.requests).toHaveLength(0);
  });

  it.each([
    [{ message: 'x', sendAt: 'in1h' }, 'to'],
    [{ to: '+4512345678', sendAt: new Date(Date.now() + 60_000).toISOString() }, 'message'],
    [{ to: '+4512345678', message: 'x' }, 'sendAt'],
    [{ to: '+4512345678', message: 'x', sendAt: 'tomorrow' }, 'sendAt'],
    [{ to: '+4512345678', message: 'x', sendAt: new Date(Date.now() - 1000).toISOString() }, 'future'],
    [{ to: '+4512345678', message: 'x', sendAt: new Date(Date.now() + 366 * 86_400_000).toISOString() }, '365 days'],
    [{ to: 'abc', message: 'x', sendAt: new Date(Date.now() + 60_000).toISOString() }, 'to'],
  ])('400 for %j', async (body, text) => {
    expectError(await t.http.post('/api/v1/sms/schedule', body), 400, text);
  });

  it('364 days ahead is accepted', async () => {
    const res = await t.http.post('/api/v1/sms/schedule', {
      to: '+4512345678',
      message: 'far',
      sendAt: new Date(Date.now() + 364 * 86_400_000).toISOString(),
    });
    expect(res.status).toBe(201);
    expect((await t.http.delete(`/api/v1/sms/scheduled/${res.body.data._id}`)).status).toBe(200);
  });
});

describe('GET /sms-templates (admin writes beyond the spec)', () => {
  it('create, list, read, update, delete; names unique; members read only', async () => {
    const u = await app.tenant('SMS templates');
    const created = await u.http.post('/api/v1/sms-templates', {
      name: 'Reminder',
      message: 'Hi {{contact.firstName}}, see you at {{time}}',
      category: 'booking',
    });
    const tpl = expectCreated(created, {
      name: 'Reminder',
      category: 'booking',
      placeholders: ['contact.firstName', 'time'],
    });
    expect((await u.http.post('/api/v1/sms-templates', { name: 'Reminder', message: 'dup' })).status).toBe(409);
    for (const body of [
      { message: 'x' },
      { name: 'x' },
      { name: '', message: 'x' },
      { name: 'x', message: 'y'.repeat(1601) },
      { name: 'x'.repeat(201), message: 'y' },
    ]) {
      expect((await u.http.post('/api/v1/sms-templates', body)).status).toBe(400);
    }
    expect(
      (await u.http.post('/api/v1/sms-templates', { name: 'x'.repeat(200), message: 'y'.repeat(1600) })).status,
    ).toBe(201);
    const member = await app.key(u.workspaceId, ['sms'], 'member');
    expect((await member.get('/api/v1/sms-templates')).body.total).toBe(2);
    expect((await member.post('/api/v1/sms-templates', { name: 'M', message: 'm' })).status).toBe(403);
    expect((await member.put(`/api/v1/sms-templates/${tpl._id}`, { name: 'M' })).status).toBe(403);
    expect((await member.delete(`/api/v1/sms-templates/${tpl._id}`)).status).toBe(403);
    const updated = await u.http.put(`/api/v1/sms-templates/${tpl._id}`, { message: 'Bye {{name}}', category: null });
    expect(updated.body.data).toMatchObject({
      name: 'Reminder',
      message: 'Bye {{name}}',
      category: null,
      placeholders: ['name'],
    });
    expect((await u.http.get(`/api/v1/sms-templates/${tpl._id}`)).body.data.message).toBe('Bye {{name}}');
    expect((await u.http.delete(`/api/v1/sms-templates/${tpl._id}`)).body).toEqual({ ok: true });
    expect((await u.http.get(`/api/v1/sms-templates/${tpl._id}`)).status).toBe(404);
  });
});
