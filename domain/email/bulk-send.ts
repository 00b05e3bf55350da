/**
 * The batched send of bulk e-mail: the same rows and guarantees as one sendEmail per recipient
 * (outbound claim under `bulk:<queueId>:<index>` committed before SMTP sees the message, an
 * `email` row sharing its id, a timeline activity, `activity_created` and `email_sent` events), but
 * written a group at a time: one statement claims a group (the outbound rows only), the messages go
 * out through the mailbox's pooled transport, one statement records a group's outcomes together
 * with the e-mail and timeline rows as they stand then (written once, not written `queued` and
 * updated). A rerun after a crash finds the claims: sent ones are replayed, fresh ones wait,
 * abandoned ones become `unknown` and get their e-mail and timeline rows then.
 */
import type { Ctx } from '../context';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { formatMailbox } from '../messaging/addresses';
import { DeliveryError } from '../messaging/delivery-error';
import { MAX_TIMELINE_TEXT, validateEmail, type EmailDeps, type ValidEmail } from '../messaging/email.service';
import { htmlToText, truncate } from '../messaging/html-text';
import { OutboundMessage } from '../messaging/outbound-message.entity';
import {
  activityCreatedRow,
  claimActivityRow,
  DEFAULT_STALE_CLAIM_MS,
  outboundClaimRow,
} from '../messaging/outbound.service';
import type { EmailSendResult } from '../messaging/ports';
import type { SendThrottle } from './bulk-throttle';
import { accountForSend } from './email-accounts.service';
import { outboundEmailRow } from './email-records';
import { addTracking } from './tracking';
import { executeAsOne, executeLean, insertRowsSql } from '../orm/lean';
import { outboxRow } from '../outbox/emit';

export { insertRowsSql };

export interface BulkMessage {
  /** The recipient row. */
  recipientId: string;
  key: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  links: { personId?: string; companyId?: string };
}

/**
 * One recipient as the pipeline gets it: id and key now, the message rendered only when its
 * claim group comes up, so rendering overlaps the sends of the groups before it.
 */
export interface BulkItem {
  recipientId: string;
  key: string;
  render(): BulkMessage;
}

export type BulkOutcome =
  | { recipientId: string; status: 'sent'; emailId: string }
  | { recipientId: string; status: 'failed' | 'unknown'; emailId: string | null; error: string }
  /** Not sent now, nothing lost: the mail server was unreachable or a previous attempt is still in flight. */
  | { recipientId: string; status: 'retry' };

interface Claimed {
  msg: BulkMessage;
  mail: ValidEmail;
  id: string;
  activityId: string;
  messageId: string;
  /** When the claim was written: the e-mail and timeline rows are dated then. */
  at: Date;
}

/** What became of a claim, as its rows record it. */
interface Outcome {
  status: 'sent' | 'failed' | 'unknown';
  pid: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
}

/**
 * The CTEs that write the e-mail rows and timeline rows of `list` as they stand with their outcome:
 * inserted, with the timeline row's `activity_created` event, or updated where an earlier attempt
 * wrote them (a failed send tried again). `onlyQueued` updates only rows still `queued`: an
 * abandoned claim made before rows waited for the outcome has them from the claim on, and a row
 * that already records an outcome (an `unknown` with the mail server's error) keeps it.
 */
function outcomeRowsSql(
  ctx: Ctx,
  list: { c: Claimed; o: Outcome }[],
  input: { accountId: string; bulkRef: string; trackOpens: boolean },
  written: { at: Date; onlyQueued: boolean },
  params: unknown[],
): [string, string][] {
  const emails: Record<string, unknown>[] = [];
  const activities: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  for (const { c, o } of list) {
    const to = c.mail.to.map((m) => m.address);
    const claim = { outboundId: c.id, activityId: c.activityId, at: c.at };
    const activity = claimActivityRow(
      ctx,
      {
        channel: 'email',
        links: c.msg.links,
        activity: {
          summary: c.mail.subject,
          description: truncate(c.mail.text?.trim() || htmlToText(c.mail.html ?? ''), MAX_TIMELINE_TEXT),
          metadata: {
            from: formatMailbox(c.mail.from),
            to,
            cc: [],
            bcc: [],
            source: 'api',
            messageId: null,
            accountId: input.accountId,
          },
        },
      },
      claim,
    );
    activity.updatedAt = written.at;
    activity.metadata = {
      ...(activity.metadata as Record<string, unknown>),
      status: o.status,
      messageId: o.pid,
      error: o.error?.slice(0, 500) ?? null,
      ...o.result,
    };
    activities.push(activity);
    events.push(activityCreatedRow(ctx, written.at, activity));
    const email = outboundEmailRow(ctx, {
      id: c.id,
      activityId: c.activityId,
      at: c.at,
      accountId: input.accountId,
      mail: c.mail,
      links: c.msg.links,
      messageId: o.pid || c.messageId,
      thread: null,
      sourceRef: input.bulkRef,
      trackOpens: input.trackOpens,
    }).row;
    Object.assign(email, {
      status: o.status,
      error: o.error,
      updatedAt: written.at,
      date: o.status === 'sent' ? written.at : c.at,
    });
    emails.push(email);
  }
  const guard = (status: string) => (written.onlyQueued ? ` where ${status} = 'queued'` : '');
  return [
    [
      'e',
      `${insertRowsSql('email', emails, params)} on conflict (id) do update set status = excluded.status,` +
        ` message_id = excluded.message_id, error = excluded.error, updated_at = excluded.updated_at,` +
        ` date = case when excluded.status = 'sent' then excluded.date else email.date end${guard('email.status')}`,
    ],
    [
      'a',
      `${insertRowsSql('activity', activities, params)} on conflict (id) do update set` +
        ` metadata = activity.metadata || excluded.metadata, updated_at = excluded.updated_at` +
        `${guard("activity.metadata->>'status'")} returning id, xmax = 0 as inserted`,
    ],
    // Only a timeline row written now is announced: an updated one was announced when it was written.
    ['ac', `${insertRowsSql('outbox_event', events, params)} where entity_id in (select id from a where inserted)`],
  ];
}

const json = (v: unknown): string => JSON.stringify(v);

/**
 * Claimed per statement. The first group is small so SMTP starts at once; the claimer stays at
 * most about one group ahead of the senders, so a crash leaves few claims that never went out.
 */
const FIRST_CLAIM = 10;
const CLAIM = 50;
/** Outcomes recorded per statement (at most). */
const RECORD = 50;

/** A minimal wake-up signal between the pipeline's stages. */
function signal(): { wait(): Promise<void>; fire(): void } {
  let waiters: (() => void)[] = [];
  return {
    wait: () => new Promise<void>((r) => waiters.push(r)),
    fire: () => {
      const w = waiters;
      waiters = [];
      for (const r of w) r();
    },
  };
}

/**
 * Claims, sends and records one batch as a pipeline: groups of claims are committed (one statement
 * each) a little ahead of the senders, `concurrency` sends stay in flight on the mailbox's pooled
 * transport, and outcomes are recorded in groups (one statement each) while later messages are
 * still going out, so SMTP does not wait for the database between groups.
 * `ctx.em` must be a workspace-bound fork outside any transaction.
 */
export async function sendBulkMessages(
  ctx: Ctx,
  input: {
    accountId: string;
    trackOpens: boolean;
    bulkRef: string;
    items: BulkItem[];
    /** No attempt ever claimed these items (the send's first batch, first attempt): no earlier claims to look up. */
    firstStart?: boolean;
  },
  deps: { email: EmailDeps; throttle: SendThrottle; concurrency: number; heartbeat?: () => void },
): Promise<BulkOutcome[]> {
  const { em } = ctx;
  const ws = ctx.actor.workspaceId;
  const account = await accountForSend(ctx, input.accountId, { asUser: false });
  if (!deps.email.accounts)
    throw new DomainError('not_configured', 'sending from connected e-mail accounts is not available in this process');
  const { transport, from } = deps.email.accounts.forAccount(account);
  const domain = from.address.slice(from.address.lastIndexOf('@') + 1);
  /** What every row of this send shares. */
  const sendOf = { accountId: account._id, bulkRef: input.bulkRef, trackOpens: input.trackOpens };
  const outcomes = new Map<string, BulkOutcome>();
  /** Renders and checks one recipient's message (throws a DomainError for a message that cannot be sent). */
  const render = (item: BulkItem): { msg: BulkMessage; mail: ValidEmail } => {
    const msg = item.render();
    return {
      msg,
      mail: validateEmail(
        {
          to: [msg.to],
          subject: msg.subject,
          html: msg.html,
          text: msg.text,
          links: msg.links,
          idempotencyKey: msg.key,
          source: 'api',
        },
        formatMailbox(from),
      ),
    };
  };
  /** render(), where a message that cannot be sent fails its recipient (undefined). */
  const prepare = (item: BulkItem): { msg: BulkMessage; mail: ValidEmail } | undefined => {
    try {
      return render(item);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      outcomes.set(item.recipientId, {
        recipientId: item.recipientId,
        status: 'failed',
        emailId: null,
        error: err.message,
      });
      return undefined;
    }
  };

  // Claims a previous attempt left: sent ones replay, failed ones go again, the rest is decided below.
  const existing = new Map(
    (input.items.length && !input.firstStart
      ? await em.find(OutboundMessage, { idempotencyKey: { $in: input.items.map((i) => i.key) } })
      : []
    ).map((o) => [o.idempotencyKey!, o]),
  );
  const staleBefore = Date.now() - (deps.email.staleClaimMs ?? DEFAULT_STALE_CLAIM_MS);
  const retried: Claimed[] = [];
  const fresh: BulkItem[] = [];
  const abandoned: { item: BulkItem; claim: OutboundMessage }[] = [];
  const claimedOf = (v: { msg: BulkMessage; mail: ValidEmail }, o: OutboundMessage): Claimed => ({
    ...v,
    id: o._id,
    activityId: o.activityId,
    messageId: `<${o._id}@${domain}>`,
    at: o.createdAt,
  });
  for (const item of input.items) {
    const o = existing.get(item.key);
    if (!o) fresh.push(item);
    else if (o.status === 'sent')
      outcomes.set(item.recipientId, { recipientId: item.recipientId, status: 'sent', emailId: o._id });
    else if (o.status === 'unknown' || (o.status === 'queued' && o.claimedAt.getTime() < staleBefore)) {
      abandoned.push({ item, claim: o });
      outcomes.set(item.recipientId, {
        recipientId: item.recipientId,
        status: 'unknown',
        emailId: o._id,
        error:
          'a previous attempt stopped after the message may have been handed to the mail server; it is not sent again',
      });
    } else if (o.status === 'queued')
      outcomes.set(item.recipientId, { recipientId: item.recipientId, status: 'retry' });
    else {
      const v = prepare(item);
      if (v) retried.push(claimedOf(v, o));
    }
  }

  // Only after a crash or a failed attempt, in one statement: abandoned claims become unknown and get their e-mail and
  // timeline rows (the outcome that would have written them never came), failed ones go again (nothing left the last
  // time; their rows stay as the failure left them until the new outcome).
  if (abandoned.length || retried.length) {
    const now = new Date();
    const note = 'the attempt stopped before its outcome was recorded';
    const params: unknown[] = [];
    const ctes: [string, string][] = [];
    if (abandoned.length) {
      const ids = abandoned.map((a) => a.claim._id);
      params.push(note, now, ws, ...ids);
      ctes.push([
        'u',
        `update outbound_message set status = 'unknown', error = ?, updated_at = ? where workspace_id = ? and id in (${ids.map(() => '?').join(',')}) and status = 'queued'`,
      ]);
      const rows: { c: Claimed; o: Outcome }[] = [];
      for (const { item, claim: o } of abandoned) {
        let v: { msg: BulkMessage; mail: ValidEmail };
        try {
          v = render(item);
        } catch (err) {
          // The message no longer renders (deterministic, so it did when claimed; its data changed since): the claim
          // stays unknown without rows.
          if (err instanceof DomainError) continue;
          throw err;
        }
        rows.push({ c: claimedOf(v, o), o: { status: 'unknown', pid: null, result: null, error: note } });
      }
      if (rows.length) ctes.push(...outcomeRowsSql(ctx, rows, sendOf, { at: now, onlyQueued: true }, params));
    }
    const ids = retried.map((c) => c.id);
    if (ids.length) {
      params.push(now, now, ws, ...ids);
      ctes.push([
        'r',
        `update outbound_message set status = 'queued', claimed_at = ?, attempts = attempts + 1, error = null, updated_at = ? where workspace_id = ? and id in (${ids.map(() => '?').join(',')}) and status = 'failed'`,
      ]);
    }
    await executeAsOne(em, ctes, params);
  }

  /** Commits the claims of `items` (the outbound rows) in one statement; the other rows come with the outcome. */
  const claim = async (items: BulkItem[]): Promise<Claimed[]> => {
    const group = items.map(prepare).filter((v) => v !== undefined);
    if (!group.length) return [];
    const at = new Date();
    const claimed = group.map((v): Claimed => {
      const id = newId(at);
      return { ...v, id, activityId: newId(at), messageId: `<${id}@${domain}>`, at };
    });
    const params: unknown[] = [];
    const sql = insertRowsSql(
      'outbound_message',
      claimed.map((c) =>
        outboundClaimRow(
          ctx,
          {
            channel: 'email',
            idempotencyKey: c.msg.key,
            source: 'api',
            recipients: c.mail.to.map((m) => m.address),
          },
          { outboundId: c.id, activityId: c.activityId, at },
        ),
      ),
      params,
    );
    await executeLean(em, sql, params);
    return claimed;
  };

  type Result = { c: Claimed; sent?: EmailSendResult; err?: unknown };
  /**
   * Writes the outcomes of `results` in one statement: the claims, the e-mail and timeline rows as they stand now (with
   * their activity_created events) and the email_sent events.
   */
  const record = async (results: Result[]): Promise<void> => {
    const at = new Date();
    const rows: { c: Claimed; o: Outcome }[] = [];
    const events: Record<string, unknown>[] = [];
    for (const { c, sent, err } of results) {
      if (sent) {
        const pid = sent.messageId || c.messageId;
        rows.push({
          c,
          o: { status: 'sent', pid, result: { accepted: sent.accepted, rejected: sent.rejected }, error: null },
        });
        const links = Object.fromEntries(Object.entries(c.msg.links).filter(([, v]) => v));
        events.push(
          outboxRow(ctx, at, 'email_sent', 'email', c.id, {
            outboundMessageId: c.id,
            activityId: c.activityId,
            email: {
              _id: c.id,
              subject: c.mail.subject,
              from: formatMailbox(c.mail.from),
              to: c.mail.to.map((m) => m.address),
              threadId: c.id,
              messageId: pid,
            },
            links,
            source: 'api',
            sourceRef: input.bulkRef,
          }),
        );
        outcomes.set(c.msg.recipientId, { recipientId: c.msg.recipientId, status: 'sent', emailId: c.id });
        continue;
      }
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
      const unknown = err instanceof DeliveryError && err.outcome === 'unknown';
      rows.push({ c, o: { status: unknown ? 'unknown' : 'failed', pid: null, result: null, error: message } });
      // A refusal for good fails the recipient; an unreachable server leaves it for the next attempt (the claim is
      // `failed`, so it goes again).
      const transient = err instanceof DeliveryError && err.outcome === 'not_sent' && !err.permanent;
      outcomes.set(
        c.msg.recipientId,
        transient
          ? { recipientId: c.msg.recipientId, status: 'retry' }
          : { recipientId: c.msg.recipientId, status: unknown ? 'unknown' : 'failed', emailId: c.id, error: message },
      );
    }
    const claims = json(rows.map(({ c, o }) => ({ id: c.id, ...o })));
    const params: unknown[] = [at, at, claims, ws];
    const ctes: [string, string][] = [
      [
        // Sent is recorded even over a claim meanwhile marked unknown: it was sent.
        'claims',
        `update outbound_message o set status = v.status, provider_message_id = v.pid, result = v.result, error = v.error, updated_at = ?, sent_at = case when v.status = 'sent' then ?::timestamptz else o.sent_at end
        from jsonb_to_recordset(?::jsonb) as v(id text, status text, pid text, result jsonb, error text) where o.workspace_id = ? and o.id = v.id and (v.status = 'sent' or o.status = 'queued')`,
      ],
      ...outcomeRowsSql(ctx, rows, sendOf, { at, onlyQueued: false }, params),
    ];
    if (events.length) ctes.push(['es', insertRowsSql('outbox_event', events, params)]);
    await executeAsOne(em, ctes, params);
  };

  // The pipeline: claimer → queue → senders → results → recorder. A failed claim stops claiming
  // (what is claimed still goes out and is recorded); a failed record also stops sending. Then the
  // error is thrown: the activity is retried and replays by key.
  const queue: Claimed[] = [...retried];
  const results: Result[] = [];
  let claiming = fresh.length > 0;
  let sending = true;
  let failure: unknown;
  const queued = signal();
  const taken = signal();
  const finished = signal();
  const fail = (err: unknown, stopSending: boolean): void => {
    failure ??= err;
    claiming = false;
    if (stopSending) queue.length = 0;
    queued.fire();
    taken.fire();
  };

  const claimer = (async () => {
    try {
      for (let at = 0; at < fresh.length && failure === undefined;) {
        while (queue.length > CLAIM / 2 && failure === undefined) await taken.wait();
        if (failure !== undefined) break;
        const size = at === 0 ? FIRST_CLAIM : CLAIM;
        const group = await claim(fresh.slice(at, at + size));
        at += size;
        if (failure === undefined) queue.push(...group);
        queued.fire();
      }
    } catch (err) {
      fail(err, false);
    } finally {
      claiming = false;
      queued.fire();
    }
  })();

  const sender = async (): Promise<void> => {
    for (;;) {
      const c = queue.shift();
      if (!c) {
        if (!claiming) return;
        await queued.wait();
        continue;
      }
      taken.fire();
      await deps.throttle.take(account._id);
      const html =
        c.mail.html && input.trackOpens && deps.email.tracking
          ? addTracking(c.mail.html, deps.email.tracking, ws, c.id)
          : c.mail.html;
      try {
        results.push({
          c,
          sent: await transport.send({
            from: c.mail.from,
            to: c.mail.to,
            subject: c.mail.subject,
            messageId: c.messageId,
            text: c.mail.text,
            html,
          }),
        });
      } catch (err) {
        results.push({ c, err });
      }
      finished.fire();
      deps.heartbeat?.();
    }
  };
  const senders = Promise.all(Array.from({ length: Math.max(1, deps.concurrency) }, sender)).finally(() => {
    sending = false;
    finished.fire();
  });

  const recorder = (async () => {
    // Every result is recorded, also after another stage failed: those messages went out.
    for (;;) {
      if (results.length >= RECORD || (!sending && results.length)) {
        try {
          await record(results.splice(0, RECORD));
        } catch (err) {
          fail(err, true);
          // Not recorded: the claims stay queued and the next attempt treats them as possibly sent.
          while (sending) await finished.wait();
          results.length = 0;
          return;
        }
        continue;
      }
      if (!sending) return;
      await finished.wait();
    }
  })();

  await Promise.all([claimer, senders, recorder]);
  if (failure !== undefined) throw failure;
  return input.items.map((i) => outcomes.get(i.recipientId) ?? { recipientId: i.recipientId, status: 'retry' });
}
