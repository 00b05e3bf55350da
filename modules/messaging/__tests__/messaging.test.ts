import { MikroORM } from '@mikro-orm/postgresql';
import { Activity } from '../../timeline/activity.entity';
import { listTimeline } from '../../timeline/timeline.service';
import type { Ctx } from '../../../platform/context';
import { DeliveryError } from '../../../platform/ports/delivery-error.port';
import { sendEmail, type EmailDeps, type SendEmailInput } from '../../email/email.service';
import { createMessagingDeps } from '../../email/messaging-deps';
import { createHttpSmsGateway } from '../../../adapters/sms/http-sms-gateway';
import { OutboundMessage } from '../outbound-message.entity';
import { sendSms, type SendSmsInput } from '../sms.service';
import { createSmtpTransport } from '../../../adapters/smtp/smtp-transport';
import { loadConfig } from '../../../app/config';
import { ormConfig } from '../../../app/orm';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { Person } from '../../people/person.entity';
import { createRecord } from '../../../platform/shared/records';
import { createWorkspace } from '../../workspaces/workspaces.service';
import { eventsFor } from '../../../test/support/outbox';
import { ok, scripted, until } from '../../../test/support/transports';
import { unique } from '../../../test/support/factories';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';
import { startDroppingSmtp, startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';

// Domain-level tests of the messaging services (no routes yet): real Postgres, a real SMTP
// server and a local HTTP SMS gateway; each test works in its own workspace.
let orm: MikroORM;
let smtp: LocalSmtp;
let gatewayServer: LocalHttp;
let smtpTransport: ReturnType<typeof createSmtpTransport>;

beforeAll(async () => {
  orm = await MikroORM.init(ormConfig(process.env.DATABASE_URL as string));
  smtp = await startSmtp({ user: 'mailer', password: 's3cret' });
  gatewayServer = await startHttp();
  smtpTransport = createSmtpTransport({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    user: 'mailer',
    password: 's3cret',
    from: { address: 'crm@sender.example', name: 'Acme CRM' },
  });
});
afterAll(async () => {
  smtpTransport.close();
  await smtp.close();
  await gatewayServer.close();
  await orm.close(true);
});

interface World {
  workspaceId: string;
  ctx: () => Ctx;
  personId: string;
}

async function world(): Promise<World> {
  const { workspaceId, userId } = await createWorkspace(orm.em.fork(), { name: `Messaging ${unique()}` });
  const ctx = (): Ctx => ({
    em: forkForWorkspace(orm.em, workspaceId),
    actor: { workspaceId, userId, role: 'owner', scopes: ['read', 'write'] },
  });
  const c = ctx();
  const person = createRecord(c, Person, {
    firstName: 'Ann',
    lastName: 'Example',
    title: null,
    emails: [{ email: 'ann@example.com' }],
    phones: [],
    companyId: null,
    customFields: [],
    tags: [],
    avatar: null,
    ownerId: userId,
  });
  await c.em.flush();
  return { workspaceId, ctx, personId: person._id };
}

const rows = (w: World) => w.ctx().em.find(OutboundMessage, {}, { orderBy: { createdAt: 'asc' } });
const activities = (w: World) => w.ctx().em.find(Activity, { type: { $in: ['email', 'sms'] } });
const received = (subject: string) => smtp.received.filter((m) => m.headers.subject === subject);

describe('sendEmail', () => {
  const input = (w: World, over: Partial<SendEmailInput> = {}): SendEmailInput => ({
    to: ['Ann Example <ann@example.com>'],
    cc: ['boss@example.com'],
    subject: `Offer ${unique()}`,
    html: '<p>Dear <b>Ann</b>,</p><p>here it is.</p>',
    text: 'Dear Ann, here it is.',
    links: { personId: w.personId },
    source: 'automation',
    ...over,
  });

  it('sends through SMTP, records the message on the person timeline and emits its events', async () => {
    const w = await world();
    const req = input(w);
    const sent = await sendEmail(w.ctx(), req, { transport: smtpTransport });
    expect(sent).toMatchObject({
      status: 'sent',
      replayed: false,
      accepted: ['ann@example.com', 'boss@example.com'],
      rejected: [],
    });
    expect(sent.messageId).toBe(`<${sent.outboundMessageId}@sender.example>`);

    const [mail] = received(req.subject);
    expect(mail!.headers.from).toBe('Acme CRM <crm@sender.example>');
    expect(mail!.headers['message-id']).toBe(sent.messageId);
    expect(mail!.user).toBe('mailer');

    const timeline = await listTimeline(w.ctx(), { personId: w.personId }, { page: 1, limit: 20 }, { feed: false });
    expect(timeline.items).toHaveLength(1);
    expect(timeline.items[0]).toMatchObject({
      _id: sent.activityId,
      type: 'email',
      system: false,
      summary: req.subject,
      description: 'Dear Ann, here it is.',
      personId: w.personId,
      entityType: 'person',
      entityId: w.personId,
      metadata: {
        to: ['ann@example.com'],
        cc: ['boss@example.com'],
        messageId: sent.messageId,
        source: 'automation',
        status: 'sent',
        outboundMessageId: sent.outboundMessageId,
      },
    });
    const [row] = await rows(w);
    expect(row).toMatchObject({
      channel: 'email',
      status: 'sent',
      providerMessageId: sent.messageId,
      attempts: 1,
      idempotencyKey: null,
    });
    expect((await eventsFor(orm, sent.activityId)).map((e) => e.type)).toEqual(['activity_created']);
    const [event] = await eventsFor(orm, sent.outboundMessageId);
    expect(event).toMatchObject({
      type: 'email_sent',
      entity_type: 'email',
      payload: {
        activityId: sent.activityId,
        email: { _id: sent.emailId, subject: req.subject, messageId: sent.messageId },
        source: 'automation',
        links: { personId: w.personId },
      },
    });
  });

  it('describes an html-only message by its text', async () => {
    const w = await world();
    const sent = await sendEmail(w.ctx(), input(w, { text: undefined }), { transport: smtpTransport });
    const activity = await w.ctx().em.findOneOrFail(Activity, { _id: sent.activityId });
    expect(activity.description).toBe('Dear Ann,\nhere it is.');
  });

  it('the same idempotency key sends once and returns the stored result', async () => {
    const w = await world();
    const req = input(w, { idempotencyKey: 'exec-1:node-1' });
    const first = await sendEmail(w.ctx(), req, { transport: smtpTransport });
    const again = await sendEmail(w.ctx(), req, { transport: smtpTransport });
    expect(again).toEqual({ ...first, replayed: true });
    expect(received(req.subject)).toHaveLength(1);
    expect(await activities(w)).toHaveLength(1);
    // Keys are per workspace: another workspace's identical key is its own message.
    const other = await world();
    await sendEmail(other.ctx(), input(other, { subject: req.subject, idempotencyKey: 'exec-1:node-1' }), {
      transport: smtpTransport,
    });
    expect(received(req.subject)).toHaveLength(2);
  });

  it('concurrent calls with one key hand the message over exactly once', async () => {
    const w = await world();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transport = scripted(async (m) => {
      await gate;
      return ok(m);
    });
    const req = input(w, { idempotencyKey: 'race' });
    let settled = 0;
    const all = Promise.allSettled(
      Array.from({ length: 6 }, () =>
        sendEmail(w.ctx(), req, { transport }).finally(() => {
          settled++;
        }),
      ),
    );
    // The winner is held inside the transport until every other call has given up.
    await until(() => transport.calls.length === 1 && settled === 5);
    release();
    const results = await all;
    expect(transport.calls).toHaveLength(1);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        code: 'conflict',
        message: expect.stringContaining('is being sent right now'),
      });
    }
    expect(await activities(w)).toHaveLength(1);
    await expect(sendEmail(w.ctx(), req, { transport })).resolves.toMatchObject({ replayed: true });
  });

  it('a retry of a sent key replays even when a linked record is gone meanwhile', async () => {
    const w = await world();
    const req = input(w, { idempotencyKey: 'replay-after-delete' });
    const transport = scripted(ok);
    const first = await sendEmail(w.ctx(), req, { transport });
    const ctx = w.ctx();
    await ctx.em.nativeDelete(Person, { _id: w.personId });
    await expect(sendEmail(w.ctx(), req, { transport })).resolves.toEqual({ ...first, replayed: true });
    expect(transport.calls).toHaveLength(1);
  });

  it('a refused send is marked failed and sent again on retry, on the same timeline row', async () => {
    const w = await world();
    const transport = scripted(async () => {
      throw new DeliveryError('SMTP server said 451 try later', 'not_sent', false);
    }, ok);
    const req = input(w, { idempotencyKey: 'retry-me' });
    await expect(sendEmail(w.ctx(), req, { transport })).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('451'),
    });
    expect(await rows(w)).toEqual([
      expect.objectContaining({ status: 'failed', error: 'SMTP server said 451 try later' }),
    ]);
    expect((await activities(w))[0]!.metadata).toMatchObject({
      status: 'failed',
      error: 'SMTP server said 451 try later',
    });

    const sent = await sendEmail(w.ctx(), req, { transport });
    expect(transport.calls).toHaveLength(2);
    expect(transport.calls[1]!.messageId).toBe(transport.calls[0]!.messageId);
    expect(await rows(w)).toEqual([expect.objectContaining({ status: 'sent', attempts: 2, error: null })]);
    const acts = await activities(w);
    expect(acts).toHaveLength(1);
    expect(acts[0]!._id).toBe(sent.activityId);
    expect(acts[0]!.metadata).toMatchObject({ status: 'sent', error: null });
    // The e-mail row written by the first attempt is sent now, and its one email_sent event tells that row.
    const conn = w.ctx().em.getConnection();
    const [email] = await conn.execute<{ status: string; subject: string }[]>(
      'select status, subject from email where id = ?',
      [sent.emailId],
    );
    expect(email).toMatchObject({ status: 'sent', subject: req.subject });
    const events = await conn.execute<{ payload: Record<string, unknown> }[]>(
      "select payload from outbox_event where entity_id = ? and type = 'email_sent'",
      [sent.emailId],
    );
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        outboundMessageId: sent.emailId,
        activityId: sent.activityId,
        email: expect.objectContaining({ _id: sent.emailId, subject: req.subject, messageId: sent.messageId }),
      }),
    ]);
  });

  it('an unknown outcome (connection dropped after the data) is never sent again', async () => {
    const w = await world();
    const dropping = await startDroppingSmtp();
    const transport = createSmtpTransport({
      host: '127.0.0.1',
      port: dropping.port,
      secure: false,
      from: { address: 'crm@sender.example' },
    });
    try {
      const req = input(w, { idempotencyKey: 'maybe' });
      await expect(sendEmail(w.ctx(), req, { transport })).rejects.toMatchObject({
        code: 'upstream_failed',
        message: expect.stringContaining('may have been delivered, so it is not sent again'),
      });
      expect(dropping.dataReceived()).toBe(1);
      expect(await rows(w)).toEqual([expect.objectContaining({ status: 'unknown' })]);
      expect((await activities(w))[0]!.metadata).toMatchObject({ status: 'unknown' });
      const counting = scripted(ok);
      await expect(sendEmail(w.ctx(), req, { transport: counting })).rejects.toMatchObject({
        code: 'invalid_state',
        message: expect.stringContaining('may already have been sent'),
      });
      expect(counting.calls).toHaveLength(0);
    } finally {
      transport.close();
      await dropping.close();
    }
  });

  it('a claim abandoned by a crashed attempt is marked unknown after the stale window, not re-sent', async () => {
    const w = await world();
    let finish!: () => void;
    const hanging = scripted(
      (m) =>
        new Promise((resolve) => {
          finish = () => resolve({ messageId: m.messageId!, accepted: ['ann@example.com'], rejected: [] });
        }),
    );
    const req = input(w, { idempotencyKey: 'crash' });
    const inFlight = sendEmail(w.ctx(), req, { transport: hanging });
    await until(() => hanging.calls.length === 1);

    await expect(sendEmail(w.ctx(), req, { transport: hanging, staleClaimMs: 60_000 })).rejects.toMatchObject({
      code: 'conflict',
      details: { retryable: true },
    });
    await expect(sendEmail(w.ctx(), req, { transport: hanging, staleClaimMs: 0 })).rejects.toMatchObject({
      code: 'invalid_state',
      details: { status: 'unknown', retryable: false },
    });
    expect(await rows(w)).toEqual([expect.objectContaining({ status: 'unknown' })]);
    expect(hanging.calls).toHaveLength(1);

    // The "crashed" attempt turns out to have finished: the truth (sent) is recorded.
    finish();
    await expect(inFlight).resolves.toMatchObject({ status: 'sent' });
    expect(await rows(w)).toEqual([expect.objectContaining({ status: 'sent' })]);
  });

  it('unconfigured: not_configured naming the variables, nothing recorded', async () => {
    const w = await world();
    const deps = createMessagingDeps(loadConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/x' }));
    await expect(sendEmail(w.ctx(), input(w), { transport: deps.transport })).rejects.toMatchObject({
      code: 'not_configured',
      message: 'e-mail is not configured: set SMTP_URL (or SMTP_HOST/SMTP_PORT/SMTP_USER/SMTP_PASSWORD) and MAIL_FROM',
    });
    await expect(
      sendSms(w.ctx(), { to: '+4512345678', message: 'x', links: {} }, { gateway: deps.gateway }),
    ).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('SMS_GATEWAY_URL'),
    });
    expect(await rows(w)).toHaveLength(0);
    expect(await activities(w)).toHaveLength(0);
  });

  it.each([
    ["another workspace's person", async () => (await world()).personId, 'links.personId: no person with id'],
    ['an unknown lead', async () => 'ffffffffffffffffffffffff', 'links.leadId: no lead with id'],
  ])('links to %s: 400, nothing sent', async (_name, id, message) => {
    const w = await world();
    const transport = scripted(ok);
    const foreign = await id();
    const links = message.includes('lead') ? { leadId: foreign } : { personId: foreign };
    await expect(sendEmail(w.ctx(), input(w, { links }), { transport })).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining(message),
    });
    expect(transport.calls).toHaveLength(0);
    expect(await rows(w)).toHaveLength(0);
  });

  it('refuses to run inside a caller transaction (the claim must commit first)', async () => {
    const w = await world();
    const ctx = w.ctx();
    await ctx.em.begin();
    try {
      await expect(sendEmail(ctx, input(w), { transport: scripted(ok) })).rejects.toThrow('outside a transaction');
    } finally {
      await ctx.em.rollback();
    }
  });
});

describe('sendSms', () => {
  const gateway = () =>
    createHttpSmsGateway(
      { url: `${gatewayServer.url}/sms`, token: 'tok', defaultFrom: 'Acme', defaultCountryCode: '45' },
      { allowHosts: ['127.0.0.1'] },
    );
  const input = (w: World, over: Partial<SendSmsInput> = {}): SendSmsInput => ({
    to: '12 34 56 78',
    message: `Hej Ann ${unique()}`,
    links: { personId: w.personId },
    source: 'automation',
    ...over,
  });
  const deps = (): { gateway: ReturnType<typeof gateway> } => ({ gateway: gateway() });
  beforeEach(() => {
    gatewayServer.requests.length = 0;
    gatewayServer.respond(json(200, { id: 'gw-1', status: 'queued' }));
  });

  it('posts to the gateway, records an sms row on the timeline, and sends once per key', async () => {
    const w = await world();
    const req = input(w, { idempotencyKey: 'exec:sms' });
    const sent = await sendSms(w.ctx(), req, deps());
    expect(sent).toMatchObject({
      status: 'sent',
      replayed: false,
      providerMessageId: 'gw-1',
      providerStatus: 'queued',
      to: '+4512345678',
      from: 'Acme',
    });
    expect(gatewayServer.requests).toHaveLength(1);
    expect(JSON.parse(gatewayServer.requests[0]!.body)).toEqual({
      to: '+4512345678',
      from: 'Acme',
      message: req.message,
    });
    expect(gatewayServer.requests[0]!.headers['idempotency-key']).toBe(sent.outboundMessageId);
    const [activity] = await activities(w);
    expect(activity).toMatchObject({
      _id: sent.activityId,
      type: 'sms',
      summary: 'SMS to +4512345678',
      description: req.message,
      personId: w.personId,
    });
    expect(activity!.metadata).toMatchObject({
      to: '+4512345678',
      from: 'Acme',
      source: 'automation',
      status: 'sent',
      messageId: 'gw-1',
    });
    expect((await eventsFor(orm, sent.outboundMessageId)).map((e) => e.type)).toEqual(['sms_sent']);

    await expect(sendSms(w.ctx(), req, deps())).resolves.toEqual({ ...sent, replayed: true });
    expect(gatewayServer.requests).toHaveLength(1);
  });

  it('a gateway 500 is failed and retried with the same Idempotency-Key', async () => {
    const w = await world();
    gatewayServer.respond(json(500, { error: 'downstream carrier error' }));
    const req = input(w, { idempotencyKey: 'sms-retry' });
    await expect(sendSms(w.ctx(), req, deps())).rejects.toMatchObject({
      code: 'upstream_failed',
      message: expect.stringContaining('downstream carrier error'),
    });
    gatewayServer.respond(json(200, { id: 'gw-2' }));
    await expect(sendSms(w.ctx(), req, deps())).resolves.toMatchObject({ providerMessageId: 'gw-2', replayed: false });
    const keys = gatewayServer.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(await rows(w)).toEqual([expect.objectContaining({ channel: 'sms', status: 'sent', attempts: 2 })]);
  });

  it('a key already used for an e-mail is a conflict', async () => {
    const w = await world();
    await sendEmail(
      w.ctx(),
      { to: ['ann@example.com'], subject: 'x', text: 'x', links: {}, idempotencyKey: 'shared' },
      { transport: scripted(ok) } as EmailDeps,
    );
    await expect(sendSms(w.ctx(), input(w, { idempotencyKey: 'shared' }), deps())).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('already used for an e-mail'),
    });
    expect(gatewayServer.requests).toHaveLength(0);
  });
});
