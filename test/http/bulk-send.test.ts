import { MikroORM } from '@mikro-orm/postgresql';
import { LeaseLost, type BulkOutcome } from '../../modules/email/bulk-send';
import { outboundEmailRow } from '../../modules/email/email-records';
import { Email } from '../../modules/email/email.entity';
import { DeliveryError } from '../../platform/ports/delivery-error.port';
import { claimRows } from '../../modules/messaging/outbound.service';
import { OutboundMessage } from '../../modules/messaging/outbound-message.entity';
import { newId } from '../../platform/ids';
import { executeLean, insertRowsSql } from '../../platform/orm/lean';
import { ormConfig } from '../../app/orm';
import { Activity } from '../../modules/timeline/activity.entity';
import { eventsFor } from '../support/outbox';
import { failing, ok, scripted, until } from '../support/transports';
import { holding, world, type World } from '../support/bulk-send-world';

// The batched send of bulk e-mail (domain/email/bulk-send.ts) against real Postgres with a scripted
// transport: which rows a recipient leaves behind after a send, a failed send, and an attempt that
// died between its claim and its outcome. The e-mail row and the timeline row are written with the
// outcome, so every path is checked for them and for exactly one activity_created event each.
let orm: MikroORM;
beforeAll(async () => {
  orm = await MikroORM.init(ormConfig(process.env.DATABASE_URL as string));
});
afterAll(async () => {
  await orm.close(true);
});

/** What one recipient left behind: its claim, e-mail row, timeline row and their events. */
async function rowsOf(w: World, index: number) {
  const em = w.ctx().em;
  const claim = await em.findOne(OutboundMessage, { idempotencyKey: w.items[index]!.key }, { refresh: true });
  if (!claim) return { claim: null, email: null, activity: null, activityCreated: [], emailSent: [] };
  const email = await em.findOne(Email, { _id: claim._id }, { refresh: true });
  const activity = await em.findOne(Activity, { _id: claim.activityId }, { refresh: true });
  const events = [...(await eventsFor(orm, claim._id)), ...(await eventsFor(orm, claim.activityId))];
  return {
    claim,
    email,
    activity,
    activityCreated: events.filter((e) => e.type === 'activity_created'),
    emailSent: events.filter((e) => e.type === 'email_sent'),
  };
}

describe('bulk send rows', () => {
  it('a sent recipient has its claim, e-mail row and timeline row as sent, one activity_created and one email_sent', async () => {
    const w = await world(orm, 3);
    const transport = scripted(ok);
    const outcomes = await w.send(transport, { firstStart: true });
    expect(outcomes.map((o) => o.status)).toEqual(['sent', 'sent', 'sent']);
    expect(transport.calls).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      const r = await rowsOf(w, i);
      expect(r.claim).toMatchObject({ status: 'sent', attempts: 1 });
      expect(r.email).toMatchObject({
        status: 'sent',
        subject: `Hello R${i}`,
        to: [`r${i}@example.com`],
        accountId: w.accountId,
        activityId: r.claim!.activityId,
        messageId: transport.calls[i]!.messageId,
      });
      expect(r.activity).toMatchObject({ type: 'email', summary: `Hello R${i}`, description: `Hi R${i}` });
      expect(r.activity!.metadata).toMatchObject({
        status: 'sent',
        outboundMessageId: r.claim!._id,
        messageId: transport.calls[i]!.messageId,
        accepted: [`r${i}@example.com`],
        error: null,
      });
      expect(r.activityCreated).toHaveLength(1);
      expect(r.activityCreated[0]!.payload).toMatchObject({ activity: { _id: r.claim!.activityId } });
      expect(r.emailSent).toHaveLength(1);
      expect(r.emailSent[0]!.payload).toMatchObject({ email: { _id: r.claim!._id, subject: `Hello R${i}` } });
    }
    // A rerun replays: nothing sent twice, no row or event written twice.
    expect((await w.send(transport)).map((o) => o.status)).toEqual(['sent', 'sent', 'sent']);
    expect(transport.calls).toHaveLength(3);
    expect((await rowsOf(w, 0)).activityCreated).toHaveLength(1);
  });

  it('while a message is with the mail server only its claim exists; an attempt that died then leaves it unknown with its rows, never sent again', async () => {
    const w = await world(orm, 2);
    const held: (() => void)[] = [];
    const hanging = scripted((m) => new Promise((resolve) => held.push(() => void ok(m).then(resolve))));
    const dead = w.send(hanging, { firstStart: true });
    await until(() => hanging.calls.length === 2);
    const during = await rowsOf(w, 0);
    expect(during.claim).toMatchObject({ status: 'queued' });
    expect(during.email).toBeNull();
    expect(during.activity).toBeNull();
    expect(during.activityCreated).toHaveLength(0);

    // Within the stale window the claim is in flight: left for later, nothing sent.
    const again = scripted(ok);
    expect((await w.send(again, { staleClaimMs: 60_000 })).map((o) => o.status)).toEqual(['retry', 'retry']);
    // Past it, the attempt counts as dead: unknown, with the rows the outcome would have written.
    const outcomes = await w.send(again, { staleClaimMs: 0 });
    expect(outcomes.map((o) => o.status)).toEqual(['unknown', 'unknown']);
    expect(again.calls).toHaveLength(0);
    const after = await rowsOf(w, 0);
    expect(after.claim).toMatchObject({ status: 'unknown' });
    expect(after.email).toMatchObject({
      status: 'unknown',
      subject: 'Hello R0',
      error: 'the attempt stopped before its outcome was recorded',
    });
    expect(after.activity!.metadata).toMatchObject({ status: 'unknown', outboundMessageId: after.claim!._id });
    expect(after.activityCreated).toHaveLength(1);
    expect(after.activityCreated[0]!.payload).toMatchObject({ activity: { metadata: { status: 'unknown' } } });
    expect(after.emailSent).toHaveLength(0);
    // Marked again by a later rerun: no row or event written twice.
    await w.send(again, { staleClaimMs: 0 });
    expect((await rowsOf(w, 0)).activityCreated).toHaveLength(1);

    // The "dead" attempt turns out to have handed both over: sent is recorded over unknown, the same rows updated.
    for (const release of held) release();
    expect((await dead).map((o) => o.status)).toEqual(['sent', 'sent']);
    const late = await rowsOf(w, 0);
    expect(late.claim).toMatchObject({ status: 'sent' });
    expect(late.email).toMatchObject({ status: 'sent', error: null });
    expect(late.activity!.metadata).toMatchObject({ status: 'sent', error: null });
    expect(late.activityCreated).toHaveLength(1);
    expect(late.emailSent).toHaveLength(1);
  });

  it('a send the server could not take leaves a failed e-mail row; the next attempt sends it and updates the same rows', async () => {
    const w = await world(orm, 1);
    const down = failing(new DeliveryError('connect ECONNREFUSED 127.0.0.1:25', 'not_sent', false));
    expect((await w.send(down, { firstStart: true })).map((o) => o.status)).toEqual(['retry']);
    const failed = await rowsOf(w, 0);
    expect(failed.claim).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.email).toMatchObject({ status: 'failed', error: expect.stringContaining('ECONNREFUSED') });
    expect(failed.activity!.metadata).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(failed.activityCreated).toHaveLength(1);

    const up = scripted(ok);
    expect(await w.send(up)).toEqual([
      { recipientId: w.items[0]!.recipientId, status: 'sent', emailId: failed.claim!._id, sentAt: expect.any(Date) },
    ]);
    expect(up.calls).toHaveLength(1);
    const sent = await rowsOf(w, 0);
    expect(sent.claim).toMatchObject({ _id: failed.claim!._id, status: 'sent', attempts: 2 });
    expect(sent.email).toMatchObject({ status: 'sent', error: null });
    expect(sent.activity).toMatchObject({ _id: failed.activity!._id });
    expect(sent.activity!.metadata).toMatchObject({ status: 'sent', error: null, accepted: ['r0@example.com'] });
    expect(sent.activityCreated).toHaveLength(1);
    expect(sent.emailSent).toHaveLength(1);
  });

  it('a refusal for good fails the recipient with its rows', async () => {
    const w = await world(orm, 1);
    const refusing = failing(new DeliveryError('550 mailbox unavailable', 'not_sent', true));
    expect(await w.send(refusing, { firstStart: true })).toEqual([
      expect.objectContaining({ status: 'failed', error: '550 mailbox unavailable' }),
    ]);
    const r = await rowsOf(w, 0);
    expect(r.email).toMatchObject({ status: 'failed', error: '550 mailbox unavailable' });
    expect(r.activity!.metadata).toMatchObject({ status: 'failed' });
    expect(r.activityCreated).toHaveLength(1);
    expect(r.emailSent).toHaveLength(0);
  });

  it('a connection lost after the hand-over is unknown with its error, kept by a rerun', async () => {
    const w = await world(orm, 1);
    const lost = failing(new DeliveryError('connection closed after DATA', 'unknown', false));
    expect(await w.send(lost, { firstStart: true })).toEqual([
      expect.objectContaining({ status: 'unknown', error: 'connection closed after DATA' }),
    ]);
    const again = scripted(ok);
    expect((await w.send(again, { staleClaimMs: 0 })).map((o) => o.status)).toEqual(['unknown']);
    expect(again.calls).toHaveLength(0);
    const r = await rowsOf(w, 0);
    expect(r.claim).toMatchObject({ status: 'unknown', error: 'connection closed after DATA' });
    expect(r.email).toMatchObject({ status: 'unknown', error: 'connection closed after DATA' });
    expect(r.activity!.metadata).toMatchObject({ status: 'unknown', error: 'connection closed after DATA' });
    expect(r.activityCreated).toHaveLength(1);
  });

  it('a claim written with its rows at claim time (before rows waited for the outcome) becomes unknown without a second timeline row', async () => {
    const w = await world(orm, 1);
    const ctx = w.ctx();
    const at = new Date(Date.now() - 60_000);
    const ids = { outboundId: newId(at), activityId: newId(at), at };
    const draft = {
      channel: 'email' as const,
      idempotencyKey: w.items[0]!.key,
      source: 'api' as const,
      recipients: ['r0@example.com'],
      links: {},
      activity: { summary: 'Hello R0', description: 'Hi R0', metadata: { accountId: w.accountId } },
    };
    const rows = claimRows(ctx, draft, ids);
    const email = outboundEmailRow(ctx, {
      id: ids.outboundId,
      activityId: ids.activityId,
      at,
      accountId: w.accountId,
      mail: {
        from: { address: 'sales@acme.example' },
        to: [{ address: 'r0@example.com' }],
        cc: [],
        bcc: [],
        subject: 'Hello R0',
        html: '<p>Hi R0</p>',
        source: 'api',
      },
      links: {},
      messageId: `<${ids.outboundId}@acme.example>`,
      thread: null,
      sourceRef: null,
      trackOpens: false,
    }).row;
    for (const [table, row] of [
      ['outbound_message', rows.outbound],
      ['activity', rows.activity],
      ['email', email],
      ['outbox_event', rows.event],
    ] as const) {
      const params: unknown[] = [];
      await executeLean(ctx.em, insertRowsSql(table, [row as Record<string, unknown>], params), params);
    }

    const transport = scripted(ok);
    expect((await w.send(transport, { staleClaimMs: 0 })).map((o) => o.status)).toEqual(['unknown']);
    expect(transport.calls).toHaveLength(0);
    const r = await rowsOf(w, 0);
    expect(r.claim).toMatchObject({ _id: ids.outboundId, status: 'unknown' });
    expect(r.email).toMatchObject({ status: 'unknown', subject: 'Hello R0' });
    expect(r.activity!.metadata).toMatchObject({ status: 'unknown' });
    expect(r.activityCreated).toHaveLength(1);
    expect(r.activityCreated[0]!.payload).toMatchObject({ activity: { metadata: { status: 'queued' } } });
  });

  it('at most `concurrency` claims are open while messages are with the mail server, the rest unclaimed', async () => {
    const w = await world(orm, 20);
    const transport = holding();
    const running = w.send(transport, { firstStart: true, concurrency: 4 });
    await until(() => transport.calls.length === 4);
    await new Promise((r) => setTimeout(r, 100));
    const claims = await w.ctx().em.find(OutboundMessage, { idempotencyKey: { $in: w.items.map((i) => i.key) } });
    // A crash now leaves 4 messages whose fate is unknown; the 16 others were never claimed, so they go out later.
    expect(claims).toHaveLength(4);
    expect(transport.calls).toHaveLength(4);
    transport.release();
    expect((await running).every((o) => o.status === 'sent')).toBe(true);
    expect(transport.calls).toHaveLength(20);
  });

  it('a sent outcome carries the time the server accepted, written to the claim and the e-mail row', async () => {
    const w = await world(orm, 2);
    const slow = scripted((m) => new Promise((r) => setTimeout(() => void ok(m).then(r), 300)));
    const started = Date.now();
    const outcomes = await w.send(slow, { firstStart: true, concurrency: 1 });
    const [first, second] = outcomes as Extract<BulkOutcome, { status: 'sent' }>[];
    // One after the other: the first accepted ~300 ms in, the second ~600 ms in (not both at the end).
    expect(first!.sentAt.getTime() - started).toBeLessThan(550);
    expect(second!.sentAt.getTime() - first!.sentAt.getTime()).toBeGreaterThanOrEqual(250);
    const r = await rowsOf(w, 0);
    expect(r.claim!.sentAt!.getTime()).toBe(first!.sentAt.getTime());
    expect(r.email!.date.getTime()).toBe(first!.sentAt.getTime());
    // A replay reports the recorded time.
    const again = await w.send(scripted(ok));
    expect((again[0] as Extract<BulkOutcome, { status: 'sent' }>).sentAt.getTime()).toBe(first!.sentAt.getTime());
  });

  it('an attempt holding the lease counts the open claims of the one before as unknown at once and sends the rest; the fenced-off attempt hands nothing more over', async () => {
    const w = await world(orm, 6);
    const first = holding();
    const dead = w.send(first, { firstStart: true, concurrency: 2, lease: await w.takeLease('a'.repeat(24)) });
    await until(() => first.calls.length === 2);

    // The next attempt takes the lease: no stale window to wait out.
    const second = scripted(ok);
    const outcomes = await w.send(second, { lease: await w.takeLease('b'.repeat(24)), concurrency: 2 });
    expect(outcomes.map((o) => o.status)).toEqual(['unknown', 'unknown', 'sent', 'sent', 'sent', 'sent']);
    expect(second.calls.map((m) => m.to[0]!.address)).toEqual([
      'r2@example.com',
      'r3@example.com',
      'r4@example.com',
      'r5@example.com',
    ]);

    // The earlier attempt was alive after all: its two messages are recorded sent, then it stops at the fence.
    first.release();
    await expect(dead).rejects.toBeInstanceOf(LeaseLost);
    expect(first.calls).toHaveLength(2);
    for (const i of [0, 1]) expect((await rowsOf(w, i)).claim).toMatchObject({ status: 'sent' });
  });
  it("a sender's next claim commits with its last message's outcome: one statement per message, never two open claims", async () => {
    const w = await world(orm, 4);
    // While message i is with the mail server, the claim of i and the outcome of i - 1 were written by one transaction.
    const seen: { prev: { status: string; xmin: string }; cur: { status: string; xmin: string } }[] = [];
    const xmin = async (i: number) =>
      (
        await executeLean<{ status: string; xmin: string }>(
          w.ctx().em,
          'select status, xmin::text as xmin from outbound_message where idempotency_key = ?',
          [w.items[i]!.key],
        )
      )[0]!;
    const transport = scripted(async (m) => {
      const i = transport.calls.length - 1;
      if (i > 0) seen.push({ prev: await xmin(i - 1), cur: await xmin(i) });
      return ok(m);
    });
    const outcomes = await w.send(transport, { firstStart: true, concurrency: 1 });
    expect(outcomes.map((o) => o.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(seen).toHaveLength(3);
    for (const { prev, cur } of seen) {
      expect(prev.status).toBe('sent');
      expect(cur.status).toBe('queued');
      expect(cur.xmin).toBe(prev.xmin);
    }
  });
});
