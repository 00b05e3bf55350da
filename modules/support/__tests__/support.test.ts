import { createLogger } from '../../../platform/logger';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../../platform/outbox/dispatcher';
import { buildSubscribers } from '../../../app/subscribers';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { connectAccount, rawMail } from '../../../test/support/email';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

jest.setTimeout(60_000);

// Received e-mails reach tickets through the outbox (support-inbound subscriber): a dispatcher
// limited to this file's workspaces runs beside the app.
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'support-test');
let app: TestApp;
let smtp: LocalSmtp;
let t: Tenant;
let other: Tenant;
let dispatcher: OutboxDispatcher;
let accountId: string;
let secret: string;
let mailboxAddress: string;

beforeAll(async () => {
  smtp = await startSmtp({ user: 'mailer', password: 's3cret-smtp' });
  app = await startTestApp();
  [t, other] = await Promise.all([app.tenant('Support A'), app.tenant('Support B')]);
  const connected = await connectAccount(app, t.workspaceId, smtp.port, {
    name: 'Support',
    emailAddress: 'help@acme.example',
    displayName: 'Acme Help',
  });
  accountId = String(connected.account._id);
  secret = connected.inboundSecret;
  mailboxAddress = 'help@acme.example';
  dispatcher = createOutboxDispatcher({
    pgConnectionString: app.config.databaseUrl,
    workspaceIds: [t.workspaceId, other.workspaceId],
    subscribers: buildSubscribers(
      { orm: app.runtime.deps.orm, config: app.config, log },
      { without: ['automations', 'contract-envelopes', 'search-index', 'webhooks', 'sequences'] },
    ),
    log,
    pollIntervalMs: 100,
    backoff: () => 100,
  });
  await dispatcher.start();
});
afterAll(async () => {
  await dispatcher?.stop();
  await app.close();
  await smtp.close();
});

const newTicket = async (body: Record<string, unknown> = {}, http = t.http) => {
  const res = await http.post('/api/v1/support-tickets', { title: 'Cannot log in', ...body });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
};
const countTickets = async (http = t.http) =>
  (await http.get('/api/v1/support-tickets?limit=100')).body.total as number;

async function until<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const mime = (headers: Record<string, string>, body = 'Still broken, please help.') =>
  rawMail({ From: 'Ann <ann@example.com>', To: mailboxAddress, Subject: 'Help', ...headers }, body);
const deliver = (raw: string, account = accountId, key = secret) =>
  app.anonymous.post(`/api/webhooks/email/inbound/${account}`, undefined, {
    headers: { 'x-webhook-secret': key, 'content-type': 'message/rfc822' },
    raw,
  });

describe('support flow', () => {
  it('is created once on first use, also by concurrent first calls, with numeric stages and categories', async () => {
    const fresh = await app.tenant('Support flow race');
    const answers = await Promise.all(Array.from({ length: 8 }, () => fresh.http.get('/api/v1/support-flow')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.data._id)).size).toBe(1);
    const flow = answers[0]!.body.data;
    expect(flow.stages.map((s: { id: number }) => s.id)).toEqual([1, 2, 3, 4]);
    expect(flow).toMatchObject({
      categories: ['general', 'technical', 'billing', 'feature_request'],
      defaultCategory: 'general',
      mailboxAccountIds: [],
    });
    const rows = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from support_flow where workspace_id = ?', [fresh.workspaceId]);
    expect(rows[0].n).toBe(1);
    expect((await fresh.http.get('/api/v1/support-tickets/categories')).body.data).toEqual({
      categories: ['general', 'technical', 'billing', 'feature_request'],
      default: 'general',
    });
  });

  it('PATCH sets categories and support mailboxes (known e-mail accounts only)', async () => {
    expect(
      (await t.http.patch('/api/v1/support-flow', { mailboxAccountIds: ['0123456789abcdef01234567'] })).status,
    ).toBe(400);
    expect((await t.http.patch('/api/v1/support-flow', { categories: [] })).status).toBe(400);
    const res = await t.http.patch('/api/v1/support-flow', {
      mailboxAccountIds: [accountId],
      categories: ['general', 'billing', 'bug'],
    });
    expectOk(res, { mailboxAccountIds: [accountId], categories: ['general', 'billing', 'bug'] });
  });
});

describe('support tickets CRUD', () => {
  it('creates with defaults (first category, open, first stage, next number) and every field', async () => {
    const a = await newTicket();
    const b = await newTicket({ title: 'Second' });
    expect(a).toMatchObject({
      status: 'open',
      priority: 'medium',
      category: 'general',
      stageId: 1,
      source: 'api',
      unreadCount: 0,
      resolution: null,
    });
    expect(b.ticketNumber).toBe(a.ticketNumber + 1);

    const me = (await t.http.get('/api/v1/whoami')).body.data.user._id as string;
    const company = (await makeCompany(t.http)).body.data._id as string;
    const person = (
      await makePerson(t.http, {
        firstName: 'Bo',
        lastName: 'Berg',
        emails: [{ email: 'Bo@Example.com' }],
        companyId: company,
      })
    ).body.data._id as string;
    const full = await newTicket({
      title: 'Invoice wrong',
      description: 'Twice billed',
      priority: 'urgent',
      category: 'billing',
      assignee: me,
      personRef: person,
      tags: ['vip', 'vip'],
    });
    expect(full).toMatchObject({
      title: 'Invoice wrong',
      priority: 'urgent',
      category: 'billing',
      assignee: me,
      personRef: person,
      company,
      customerEmail: 'bo@example.com',
      customerName: 'Bo Berg',
      tags: ['vip'],
    });
    expect((await t.http.get(`/api/v1/support-tickets/${full._id}`)).body.data).toEqual(full);
    const events = await eventsFor(app.runtime.deps.orm, full._id);
    expect(events[0]).toMatchObject({
      type: 'support_ticket_created',
      entity_type: 'support-ticket',
      payload: { ticket: { _id: full._id }, person: { _id: person }, company: { _id: company } },
    });
  });

  it('concurrent creates in a fresh workspace get one flow and distinct, gapless ticket numbers', async () => {
    const fresh = await app.tenant('Ticket number race');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => fresh.http.post('/api/v1/support-tickets', { title: `Race ${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(answers.map((a) => a.body.data.ticketNumber as number).sort((x, y) => x - y)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(new Set(answers.map((a) => a.body.data.flowId)).size).toBe(1);
  });

  it.each([
    ['missing title', {}, 'title'],
    ['blank title', { title: '  ' }, 'title'],
    ['title too long', { title: 'x'.repeat(301) }, 'title'],
    ['unknown priority', { title: 'x', priority: 'asap' }, 'priority'],
    ['category not in the flow', { title: 'x', category: 'sales' }, 'category'],
    ['assignee not a user', { title: 'x', assignee: '0123456789abcdef01234567' }, 'assignee'],
    ['unknown company', { title: 'x', company: '0123456789abcdef01234567' }, 'company'],
    ['unknown person', { title: 'x', personRef: '0123456789abcdef01234567' }, 'personRef'],
    ['malformed person id', { title: 'x', personRef: 'nope' }, 'personRef'],
    ['bad customer e-mail', { title: 'x', customerEmail: 'not-an-address' }, 'customerEmail'],
    ['tags not an array', { title: 'x', tags: 'vip' }, 'tags'],
  ])('400 for %s', async (_name, body, field) => {
    const before = await countTickets();
    const res = await t.http.post('/api/v1/support-tickets', body);
    expectError(res, 400, field);
    expect(await countTickets()).toBe(before);
  });

  it('preview returns current, proposed and diff without saving (create and update)', async () => {
    const before = await countTickets();
    const res = await t.http.post('/api/v1/support-tickets?preview=true', { title: 'Preview me', priority: 'low' });
    expectOk(res, {
      preview: true,
      current: null,
      proposed: { title: 'Preview me', priority: 'low', ticketNumber: null },
      diff: { title: { from: null, to: 'Preview me' } },
    });
    expect(
      (await t.http.post('/api/v1/support-tickets', { title: 'Body preview', preview: true })).body.data.preview,
    ).toBe(true);
    expect(await countTickets()).toBe(before);

    const ticket = await newTicket();
    const put = await t.http.put(`/api/v1/support-tickets/${ticket._id}`, {
      priority: 'high',
      status: 'resolved',
      preview: true,
    });
    expect(put.body.data).toMatchObject({
      preview: true,
      current: { priority: 'medium', status: 'open' },
      proposed: { priority: 'high', status: 'resolved' },
      diff: { priority: { from: 'medium', to: 'high' }, status: { from: 'open', to: 'resolved' } },
    });
    expect((await t.http.get(`/api/v1/support-tickets/${ticket._id}`)).body.data).toMatchObject({
      priority: 'medium',
      status: 'open',
    });
    expect((await eventsFor(app.runtime.deps.orm, ticket._id)).map((e) => e.type)).toEqual(['support_ticket_created']);
  });

  it('lists with page envelope and filters status, priority, assignee, category, search', async () => {
    const me = (await t.http.get('/api/v1/whoami')).body.data.user._id as string;
    const tag = `zq${Date.now()}`;
    const x = await newTicket({ title: `Printer ${tag} jams`, priority: 'low', category: 'bug', assignee: me });
    const y = await newTicket({ title: `Scanner ${tag}`, priority: 'high', description: 'no power' });
    await t.http.put(`/api/v1/support-tickets/${y._id}`, { status: 'on_hold' });
    const ids = async (q: string) =>
      (await t.http.get(`/api/v1/support-tickets?search=${tag}&${q}`)).body.data.map((d: { _id: string }) => d._id);
    const all = await t.http.get(`/api/v1/support-tickets?search=${tag}`);
    expect(all.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(await ids('')).toEqual([y._id, x._id]);
    expect(await ids('status=on_hold')).toEqual([y._id]);
    expect(await ids('priority=low')).toEqual([x._id]);
    expect(await ids(`assignee=${me}`)).toEqual([x._id]);
    expect(await ids('category=bug')).toEqual([x._id]);
    expect(
      (await t.http.get(`/api/v1/support-tickets?search=%23${x.ticketNumber}`)).body.data.map(
        (d: { _id: string }) => d._id,
      ),
    ).toContain(x._id);
    for (const q of ['status=done', 'priority=asap', 'assignee=nope', 'limit=101', 'page=0'])
      expect((await t.http.get(`/api/v1/support-tickets?${q}`)).status).toBe(400);
  });

  it('status follows the documented transitions; events name resolved, closed, reopened and assigned', async () => {
    const me = (await t.http.get('/api/v1/whoami')).body.data.user._id as string;
    const ticket = await newTicket();
    const put = (body: Record<string, unknown>) => t.http.put(`/api/v1/support-tickets/${ticket._id}`, body);
    expect((await put({ status: 'pending', assignee: me })).body.data).toMatchObject({
      status: 'pending',
      assignee: me,
    });
    const resolved = (
      await put({ status: 'resolved', resolution: 'Reset the password', customFields: { cause: 'user' } })
    ).body.data;
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolution: 'Reset the password',
      customFields: { cause: 'user' },
    });
    expect(resolved.resolvedAt).not.toBeNull();
    const bad = await put({ status: 'pending' });
    expect(bad.status).toBe(409);
    expect(bad.body).toMatchObject({ code: 'invalid_state' });
    expect(bad.body.error).toMatch(/resolved/);
    expect((await put({ status: 'closed', customFields: { area: 'auth' } })).body.data).toMatchObject({
      status: 'closed',
      customFields: { cause: 'user', area: 'auth' },
    });
    expect((await put({ status: 'on_hold' })).status).toBe(409);
    const reopened = (await put({ status: 'open' })).body.data;
    expect(reopened).toMatchObject({ status: 'open', resolvedAt: null, closedAt: null });
    expect((await put({ status: 'archived' })).status).toBe(400);
    const types = (await eventsFor(app.runtime.deps.orm, ticket._id)).map((e) => e.type);
    expect(types).toEqual([
      'support_ticket_created',
      'support_ticket_updated',
      'support_ticket_assigned',
      'support_ticket_updated',
      'support_ticket_resolved',
      'support_ticket_updated',
      'support_ticket_closed',
      'support_ticket_updated',
      'support_ticket_reopened',
    ]);
  });

  it('moves between kanban stages by numeric stageId; unknown stage or flow is 400', async () => {
    const ticket = await newTicket();
    const flow = (await t.http.get('/api/v1/support-flow')).body.data;
    const moved = await t.http.post(`/api/v1/support-tickets/${ticket._id}/move`, { stageId: 3, flowId: flow._id });
    expect(moved.status).toBe(200);
    expect(moved.body.data.stageId).toBe(3);
    for (const body of [
      { stageId: 9 },
      { stageId: 'abc' },
      {},
      { stageId: 2, flowId: '0123456789abcdef01234567' },
      { stageId: 1.5 },
    ]) {
      const res = await t.http.post(`/api/v1/support-tickets/${ticket._id}/move`, body);
      expect([res.status, body]).toEqual([400, body]);
    }
    const events = await eventsFor(app.runtime.deps.orm, ticket._id);
    expect(events.find((e) => e.type === 'support_ticket_stage_changed')).toMatchObject({
      payload: { fromStageId: 1, toStageId: 3 },
    });
  });

  it('deletes with messages and time entries', async () => {
    const ticket = await newTicket();
    await t.http.post(`/api/v1/support-tickets/${ticket._id}/reply`, { content: 'note', type: 'note' });
    await t.http.post(`/api/v1/support-tickets/${ticket._id}/time-entries`, { hours: 1 });
    expect((await t.http.delete(`/api/v1/support-tickets/${ticket._id}`)).status).toBe(200);
    expect((await t.http.get(`/api/v1/support-tickets/${ticket._id}`)).status).toBe(404);
    const rows = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute(
        'select (select count(*) from support_ticket_message where ticket_id = ?)::int as m, (select count(*) from support_time_entry where ticket_id = ?)::int as e',
        [ticket._id, ticket._id],
      );
    expect(rows[0]).toEqual({ m: 0, e: 0 });
  });

  it('another workspace gets 404 on every ticket route', async () => {
    const ticket = await newTicket();
    const h = other.http;
    const base = `/api/v1/support-tickets/${ticket._id}`;
    const answers = await Promise.all([
      h.get(base),
      h.put(base, { title: 'x' }),
      h.post(`${base}/reply`, { content: 'x' }),
      h.post(`${base}/move`, { stageId: 2 }),
      h.get(`${base}/messages`),
      h.get(`${base}/time-entries`),
      h.post(`${base}/time-entries`, { hours: 1 }),
      h.delete(base),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(404));
    expect(
      (await other.http.get('/api/v1/support-tickets')).body.data.map((d: { _id: string }) => d._id),
    ).not.toContain(ticket._id);
    expect((await t.http.get(base)).body.data.title).toBe('Cannot log in');
    expect((await t.http.get('/api/v1/support-tickets/nope')).status).toBe(404);
  });
});

describe('replies, messages and e-mail threading', () => {
  it('an internal note is stored but not e-mailed; a public reply goes to the customer by e-mail with Message-ID threading', async () => {
    const ticket = await newTicket({ title: 'VPN drops', customerEmail: 'ann@example.com' });
    const sentBefore = smtp.received.length;
    const note = await t.http.post(`/api/v1/support-tickets/${ticket._id}/reply`, {
      content: 'Customer is on the old client',
      type: 'note',
    });
    expectCreated(note, {
      type: 'note',
      visibility: 'internal',
      direction: 'internal',
      emailed: false,
      email: null,
    });
    expect(smtp.received.length).toBe(sentBefore);

    const reply = await t.http.post(`/api/v1/support-tickets/${ticket._id}/reply`, {
      content: '<p>Please update to <b>v2</b>.</p>',
    });
    expectCreated(reply, {
      type: 'reply',
      visibility: 'public',
      direction: 'outbound',
      emailed: true,
      ticket: { status: 'pending', unreadCount: 0 },
    });
    expect(reply.body.data.ticket.firstResponseAt).not.toBeNull();
    const mail = smtp.received.at(-1)!;
    expect(smtp.received.length).toBe(sentBefore + 1);
    expect(mail.to).toEqual(['ann@example.com']);
    expect(mail.headers.subject).toBe(`Re: VPN drops [#${ticket.ticketNumber}]`);
    expect(mail.headers['message-id']).toBe(reply.body.data.messageId);
    expect(mail.headers.from).toContain(mailboxAddress);
    const email = (await t.http.get(`/api/v1/emails/${reply.body.data.emailId}`)).body.data;
    expect(email).toMatchObject({ source: 'support', sourceRef: ticket._id, direction: 'outbound', status: 'sent' });

    // The customer answers: the reply threads into the ticket (In-Reply-To), which opens again with one unread message.
    const answer = await deliver(
      mime(
        {
          Subject: `Re: VPN drops [#${ticket.ticketNumber}]`,
          'In-Reply-To': mail.headers['message-id']!,
          References: mail.headers['message-id']!,
        },
        'Updated, works now?',
      ),
    );
    expect(answer.status).toBe(202);
    const messages = await until(async () => {
      const res = await t.http.get(`/api/v1/support-tickets/${ticket._id}/messages`);
      return res.body.data.length === 3 ? res.body : null;
    }, 'the customer answer on the ticket');
    expect(messages).toMatchObject({ page: 1, limit: 50, total: 3 });
    expect(messages.data.map((m: { direction: string }) => m.direction)).toEqual(['internal', 'outbound', 'inbound']);
    expect(messages.data[2]).toMatchObject({
      type: 'email',
      visibility: 'public',
      content: 'Updated, works now?',
      emailId: answer.body.data.email._id,
    });
    expect((await t.http.get(`/api/v1/support-tickets/${ticket._id}`)).body.data).toMatchObject({
      status: 'open',
      unreadCount: 1,
    });
    expect(
      (await t.http.get(`/api/v1/support-tickets/${ticket._id}/messages?visibility=internal`)).body.data.map(
        (m: { type: string }) => m.type,
      ),
    ).toEqual(['note']);
    expect(
      (await t.http.get(`/api/v1/support-tickets/${ticket._id}/messages?visibility=public&limit=1`)).body,
    ).toMatchObject({ total: 2, limit: 1 });

    // The second agent reply threads under the customer's message.
    const second = await t.http.post(`/api/v1/support-tickets/${ticket._id}/reply`, {
      content: 'Great, closing soon.',
    });
    expect(smtp.received.at(-1)!.headers['in-reply-to']).toBe(answer.body.data.email.messageId);
    expect(second.body.data.ticket.unreadCount).toBe(0);
    const types = (await eventsFor(app.runtime.deps.orm, ticket._id)).map((e) => e.type);
    expect(types.filter((x) => x === 'support_ticket_replied')).toHaveLength(4);
  });

  it('an e-mail to the support mailbox opens a ticket; a later mail quoting [#n] from the same customer continues it', async () => {
    const subject = `Refund please ${Date.now()}`;
    const first = await deliver(mime({ From: 'Cy <cy@example.org>', Subject: subject }, 'I was charged twice.'));
    expect(first.status).toBe(202);
    const ticket = await until(async () => {
      const list = (await t.http.get(`/api/v1/support-tickets?search=${encodeURIComponent(subject)}`)).body.data;
      return list[0] as Record<string, any> | undefined;
    }, 'the ticket from the e-mail');
    expect(ticket).toMatchObject({
      title: subject,
      description: 'I was charged twice.',
      source: 'email',
      customerEmail: 'cy@example.org',
      customerName: 'Cy',
      status: 'open',
      unreadCount: 1,
    });
    expect((await eventsFor(app.runtime.deps.orm, ticket._id)).map((e) => e.type)).toEqual([
      'support_ticket_created',
      'support_ticket_replied',
    ]);

    await deliver(mime({ From: 'cy@example.org', Subject: `More info [#${ticket.ticketNumber}]` }, 'Order 42.'));
    // Someone else quoting the number does not get into the ticket (and opens a ticket of their own).
    await deliver(mime({ From: 'mallory@example.net', Subject: `Hijack [#${ticket.ticketNumber}]` }, 'Let me in.'));
    const msgs = await until(async () => {
      const res = await t.http.get(`/api/v1/support-tickets/${ticket._id}/messages`);
      return res.body.data.length >= 2 ? res.body.data : null;
    }, 'the continued ticket');
    await until(
      async () => (await t.http.get('/api/v1/support-tickets?search=Hijack')).body.total === 1,
      'the separate ticket',
    );
    expect(msgs.map((m: { content: string }) => m.content)).toEqual(['I was charged twice.', 'Order 42.']);
    expect((await t.http.get(`/api/v1/support-tickets/${ticket._id}`)).body.data.unreadCount).toBe(2);
  });

  it('mail to a mailbox that is not a support mailbox opens no ticket', async () => {
    const sales = await connectAccount(app, t.workspaceId, smtp.port, {
      name: 'Sales',
      emailAddress: `sales-${Date.now()}@acme.example`,
    });
    const subject = `Not support ${Date.now()}`;
    const res = await deliver(mime({ Subject: subject }), String(sales.account._id), sales.inboundSecret);
    expect(res.status).toBe(202);
    const emailId = res.body.data.email._id as string;
    // The event is delivered to the support subscriber (processed) and nothing was created.
    await until(async () => {
      const rows = await app.runtime.deps.orm.em
        .fork()
        .getConnection()
        .execute(`select delivered_to from outbox_event where entity_id = ? and type = 'email_received'`, [emailId]);
      return (rows[0]?.delivered_to as string[] | undefined)?.includes('support-inbound');
    }, 'delivery to support-inbound');
    expect((await t.http.get(`/api/v1/support-tickets?search=${encodeURIComponent(subject)}`)).body.total).toBe(0);
  });

  it('reply validation: content required, type and visibility enums, a note cannot be public; without a mailbox or sender a public reply is 503', async () => {
    const ticket = await newTicket({ customerEmail: 'dee@example.com' });
    for (const body of [
      {},
      { content: '' },
      { content: '   ' },
      { content: '<p></p>' },
      { content: 'x', type: 'sms' },
      { content: 'x', visibility: 'everyone' },
      { content: 'x', type: 'note', visibility: 'public' },
      { content: 5 },
    ]) {
      const res = await t.http.post(`/api/v1/support-tickets/${ticket._id}/reply`, body);
      expect([res.status, body]).toEqual([400, body]);
    }
    // Workspace B has no support mailbox and the test app no fallback sender.
    const bTicket = await newTicket({ customerEmail: 'eve@example.com' }, other.http);
    const res = await other.http.post(`/api/v1/support-tickets/${bTicket._id}/reply`, { content: 'Hello' });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('not_configured');
    expect((await other.http.get(`/api/v1/support-tickets/${bTicket._id}/messages`)).body.total).toBe(0);
    // A public reply to a ticket without any customer address is stored, not e-mailed.
    const anon = await newTicket({}, other.http);
    expect(
      (await other.http.post(`/api/v1/support-tickets/${anon._id}/reply`, { content: 'Noted' })).body.data,
    ).toMatchObject({ visibility: 'public', emailed: false });
  });
});

describe('time entries', () => {
  it('logs hours (+ minutes), lists newest first with totalHours; validates', async () => {
    const ticket = await newTicket();
    const base = `/api/v1/support-tickets/${ticket._id}/time-entries`;
    expect(
      (await t.http.post(base, { hours: 1, minutes: 30, description: 'Debugging', date: '2030-01-02' })).body.data,
    ).toMatchObject({ hours: 1.5, billable: true, description: 'Debugging' });
    expect((await t.http.post(base, { hours: 0.25, billable: false, date: '2030-01-03' })).status).toBe(201);
    const list = (await t.http.get(base)).body;
    expect(list).toMatchObject({ total: 2, page: 1, limit: 20, totalHours: 1.75 });
    expect(list.data.map((e: { hours: number }) => e.hours)).toEqual([0.25, 1.5]);
    for (const body of [
      {},
      { hours: 0 },
      { hours: -1 },
      { hours: '2' },
      { hours: 1, date: 'soon' },
      { hours: 1, billable: 'yes' },
    ]) {
      expect((await t.http.post(base, body)).status).toBe(400);
    }
  });
});

describe('support customers', () => {
  it("aggregates per person / e-mail / visitor, searches (q alias) and sorts by the spec's keys", async () => {
    const fresh = await app.tenant('Support customers');
    const h = fresh.http;
    const person = (
      await makePerson(h, { firstName: 'Finn', lastName: 'Holm', emails: [{ email: 'finn@example.com' }] })
    ).body.data._id as string;
    const mk = async (body: Record<string, unknown>) =>
      (await h.post('/api/v1/support-tickets', { title: 'T', ...body })).body.data._id as string;
    const f1 = await mk({ personRef: person });
    await mk({ personRef: person });
    const f3 = await mk({ personRef: person });
    await h.put(`/api/v1/support-tickets/${f3}`, { status: 'closed' });
    await mk({ customerEmail: 'gus@example.com', customerName: 'Gus' });
    const g2 = await mk({ customerEmail: 'GUS@example.com' });
    await mk({ visitorId: 'v-123', customerName: 'Anonymous visitor' });
    // Unread: customer messages since the last reply (set directly: inbound mail is covered above).
    const conn = app.runtime.deps.orm.em.fork().getConnection();
    await conn.execute(`update support_ticket set unread_count = 5 where id = ?`, [g2]);
    await conn.execute(`update support_ticket set last_activity_at = now() + interval '1 hour' where id = ?`, [f1]);
    await conn.execute(
      `update support_ticket set last_activity_at = now() - interval '1 day' where workspace_id = ? and visitor_id = 'v-123'`,
      [fresh.workspaceId],
    );

    const list = async (q: string) => (await h.get(`/api/v1/support-customers${q}`)).body;
    const all = await list('');
    expect(all).toMatchObject({ page: 1, limit: 20, total: 3 });
    expect(all.data.map((c: { type: string }) => c.type)).toEqual(['person', 'email', 'visitor']);
    expect(all.data[0]).toMatchObject({
      type: 'person',
      value: person,
      personId: person,
      name: 'Finn Holm',
      email: 'finn@example.com',
      totalTickets: 3,
      openTickets: 2,
      unread: 0,
    });
    expect(all.data[1]).toMatchObject({
      type: 'email',
      value: 'gus@example.com',
      name: 'Gus',
      totalTickets: 2,
      openTickets: 2,
      unread: 5,
    });
    expect(all.data[2]).toMatchObject({
      type: 'visitor',
      value: 'v-123',
      visitorId: 'v-123',
      totalTickets: 1,
      openTickets: 1,
      unread: 0,
    });
    const order = async (q: string) => (await list(q)).data.map((c: { value: string }) => c.value);
    expect(await order('?sortOrder=asc')).toEqual(['v-123', 'gus@example.com', person]);
    expect(await order('?sortBy=totalTickets')).toEqual([person, 'gus@example.com', 'v-123']);
    expect(await order('?sortBy=totalTickets&sortOrder=asc')).toEqual(['v-123', 'gus@example.com', person]);
    expect(await order('?sortBy=openTickets&sortOrder=asc')).toEqual(['v-123', person, 'gus@example.com']);
    expect(await order('?sortBy=unread')).toEqual(['gus@example.com', person, 'v-123']);
    expect(await order('?search=holm')).toEqual([person]);
    expect(await order('?q=GUS@')).toEqual(['gus@example.com']);
    expect(await list('?limit=1&page=2')).toMatchObject({ total: 3, data: [{ value: 'gus@example.com' }] });
    for (const q of ['?sortBy=name', '?sortOrder=up', '?limit=0'])
      expect((await h.get(`/api/v1/support-customers${q}`)).status).toBe(400);

    const detail = (await h.get(`/api/v1/support-customers/detail?type=person&value=${person}`)).body.data;
    expect(detail).toMatchObject({
      type: 'person',
      value: person,
      totalTickets: 3,
      openTickets: 2,
      person: { _id: person, firstName: 'Finn' },
    });
    expect(detail.tickets).toHaveLength(3);
    expect((await h.get('/api/v1/support-customers/detail?type=email&value=Gus@Example.com')).body.data).toMatchObject({
      type: 'email',
      value: 'gus@example.com',
      totalTickets: 2,
      unread: 5,
      person: null,
    });
    expect((await h.get('/api/v1/support-customers/detail?type=visitor&value=v-123')).body.data.tickets).toHaveLength(
      1,
    );
    expect((await h.get('/api/v1/support-customers/detail?type=email&value=nobody@example.com')).status).toBe(404);
    expect((await h.get(`/api/v1/support-customers/detail?type=person&value=${person}`, {})).status).toBe(200);
    expect((await t.http.get(`/api/v1/support-customers/detail?type=person&value=${person}`)).status).toBe(404);
    for (const q of ['', '?type=person', '?value=x', '?type=phone&value=1'])
      expect((await h.get(`/api/v1/support-customers/detail${q}`)).status).toBe(400);
  });
});

describe('GET /reports/support', () => {
  it('counts by status, priority and category with average first response and resolution times (hand-computed)', async () => {
    const fresh = await app.tenant('Support report');
    const h = fresh.http;
    await h.patch('/api/v1/support-flow', { categories: ['general', 'billing'] });
    const mk = async (body: Record<string, unknown>) =>
      (await h.post('/api/v1/support-tickets', { title: 'R', ...body })).body.data._id as string;
    const a = await mk({ priority: 'high', category: 'billing' });
    const b = await mk({ priority: 'high' });
    const c = await mk({ priority: 'low' });
    const d = await mk({});
    await h.put(`/api/v1/support-tickets/${b}`, { status: 'resolved' });
    await h.put(`/api/v1/support-tickets/${c}`, { status: 'closed' });
    await h.put(`/api/v1/support-tickets/${d}`, { status: 'pending' });
    // Fix the clock: created 10:00; a answered after 30 min, b after 90 min and resolved after 4 h, c resolved after 2
    // h.
    const conn = app.runtime.deps.orm.em.fork().getConnection();
    await conn.execute(
      `update support_ticket set created_at = '2030-05-01T10:00:00Z', first_response_at = null, resolved_at = null where workspace_id = ?`,
      [fresh.workspaceId],
    );
    await conn.execute(`update support_ticket set first_response_at = '2030-05-01T10:30:00Z' where id = ?`, [a]);
    await conn.execute(
      `update support_ticket set first_response_at = '2030-05-01T11:30:00Z', resolved_at = '2030-05-01T14:00:00Z' where id = ?`,
      [b],
    );
    await conn.execute(`update support_ticket set resolved_at = '2030-05-01T12:00:00Z' where id = ?`, [c]);

    const res = await h.get('/api/v1/reports/support');
    expect(res.status).toBe(200);
    const r = res.body.data;
    expect(r).toMatchObject({
      total: 4,
      open: 2,
      closed: 2,
      averageFirstResponseMinutes: 60,
      averageResolutionMinutes: 180,
      responded: 2,
      resolved: 2,
    });
    expect(r.byStatus).toEqual([
      { status: 'closed', count: 1 },
      { status: 'open', count: 1 },
      { status: 'pending', count: 1 },
      { status: 'resolved', count: 1 },
    ]);
    expect(r.byPriority).toEqual([
      { priority: 'high', count: 2, open: 1, closed: 1 },
      { priority: 'low', count: 1, open: 0, closed: 1 },
      { priority: 'medium', count: 1, open: 1, closed: 0 },
    ]);
    expect(r.byCategory).toEqual([
      { category: 'general', count: 3, open: 1, closed: 2 },
      { category: 'billing', count: 1, open: 1, closed: 0 },
    ]);
    // The range bounds createdAt; another workspace sees none of it.
    expect((await h.get('/api/v1/reports/support?dateFrom=2030-05-02')).body.data).toMatchObject({
      total: 0,
      averageFirstResponseMinutes: null,
    });
    expect((await h.get('/api/v1/reports/support?dateTo=2030-05-01')).body.data.total).toBe(4);
    expect(
      (await other.http.get('/api/v1/reports/support?dateFrom=2030-05-01&dateTo=2030-05-01')).body.data.total,
    ).toBe(0);
    expect((await h.get('/api/v1/reports/support?dateFrom=yesterday')).status).toBe(400);
  });
});
