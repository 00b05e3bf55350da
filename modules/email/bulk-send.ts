/**
 * The batched send of bulk e-mail: the same rows and guarantees as one sendEmail per recipient
 * (outbound claim under `bulk:<queueId>:<index>` committed before SMTP sees the message, an
 * `email` row sharing its id, a timeline activity, `activity_created` and `email_sent` events).
 * Each of `concurrency` senders claims one message, hands it to the mailbox's pooled transport and
 * records the outcome (with the recipient row and the accepted time) before it takes the next, so
 * at most `concurrency` claims are ever open: a crash leaves at most that many `unknown`. The
 * claims and outcomes of the senders go to Postgres by group commit (one statement for many).
 * A rerun finds the claims: sent ones are replayed, failed ones go again, open ones are `unknown`
 * (at once when the caller holds the send's lease, which fences every earlier attempt off).
 */
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import {
  DEFAULT_STALE_CLAIM_MS,
  MailboxCapReached,
  formatMailbox,
  hasCaps,
  outboundClaimRow,
  releaseMailboxQuota,
  takeMailboxQuota,
  type MailboxCaps,
} from '../messaging';
import { validateEmail, type EmailDeps, type ValidEmail } from './email.service';
import { executeLean, insertRowsSql } from '../../platform/orm/lean';
import { groupCommit } from '../../platform/shared/group-commit';
import {
  outcomePartsSql,
  recipientsSql,
  type BulkItem,
  type BulkMessage,
  type BulkOutcome,
  type Claimed,
  type SendResult,
} from './bulk-rows';
import type { SendThrottle } from './bulk-throttle';
import { accountForSend } from './email-accounts.service';
import { addTracking } from './tracking';
import { resumeClaims } from './bulk-resume';

export { insertRowsSql, recipientsSql };
export type { BulkItem, BulkMessage, BulkOutcome };

/**
 * The send's lease (email_bulk.lease) as the caller took it: claims commit only while it is still
 * this one, so an attempt that lost it (a worker presumed dead that is not) hands nothing more over.
 */
export interface BulkLease {
  bulkId: string;
  token: string;
}

/** Thrown by an attempt whose lease another attempt took: it stops handing messages over. */
export class LeaseLost extends Error {
  constructor() {
    super('another attempt of this bulk send took over; this one stops');
    this.name = 'LeaseLost';
  }
}

/** Counts for heartbeat details. */
export interface BulkProgress {
  sent: number;
  failed: number;
  unknown: number;
  retry: number;
}

const json = (v: unknown): string => JSON.stringify(v);

/**
 * Claims, sends and records one batch. With `lease`, every claim an earlier attempt left open is
 * `unknown` now (taking the lease fenced that attempt off: it may have handed those over, nothing
 * more); without, only claims older than the stale window are.
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
    lease?: BulkLease;
  },
  deps: {
    email: EmailDeps;
    throttle: SendThrottle;
    concurrency: number;
    heartbeat?: (progress: BulkProgress) => void;
  },
): Promise<BulkOutcome[]> {
  const { em } = ctx;
  const ws = ctx.actor.workspaceId;
  const account = await accountForSend(ctx, input.accountId, { asUser: false });
  // The mailbox's maxPerHour / maxPerDay (send-quota.ts), counted with every other sender's sends.
  const caps: MailboxCaps = {
    accountId: account._id,
    maxPerHour: account.maxPerHour ?? null,
    maxPerDay: account.maxPerDay ?? null,
  };
  const capped = hasCaps(caps);
  /** Set once the cap is reached: no sender claims more; the rest waits for the window (retryAt). */
  let capReached: MailboxCapReached | undefined;
  /**
   * One unit of the cap for a fresh message, in its own short transaction right before the claim statement (which
   * several senders share); given back when the message is not claimed after all. False: the cap is reached.
   */
  const takeUnit = async (): Promise<boolean> => {
    try {
      await em.fork().transactional((tem) => takeMailboxQuota(tem, ws, caps));
      return true;
    } catch (err) {
      if (!(err instanceof MailboxCapReached)) throw err;
      capReached ??= err;
      return false;
    }
  };
  if (!deps.email.accounts)
    throw new DomainError('not_configured', 'sending from connected e-mail accounts is not available in this process');
  const { transport, from } = deps.email.accounts.forAccount(account);
  const domain = from.address.slice(from.address.lastIndexOf('@') + 1);
  /** What every row of this send shares. */
  const sendOf = { accountId: account._id, bulkRef: input.bulkRef, trackOpens: input.trackOpens };
  const outcomes = new Map<string, BulkOutcome>();
  const progress: BulkProgress = { sent: 0, failed: 0, unknown: 0, retry: 0 };
  const decide = (o: BulkOutcome): void => {
    outcomes.set(o.recipientId, o);
    progress[o.status]++;
  };
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
      decide({ recipientId: item.recipientId, status: 'failed', emailId: null, error: err.message });
      return undefined;
    }
  };
  // Claims a previous attempt left: sent ones replay, failed ones go again, abandoned ones become unknown.
  const { retried, fresh } = await resumeClaims(ctx, input, {
    staleClaimMs: deps.email.staleClaimMs ?? DEFAULT_STALE_CLAIM_MS,
    domain,
    sendOf,
    render,
    prepare,
    decide,
  });

  /** The lease check of a claim statement: the send's row, share-locked, while the lease is still this attempt's. */
  const fence = (params: unknown[]): { cte: string; cond: string } => {
    if (!input.lease) return { cte: '', cond: '' };
    params.push(ws, input.lease.bulkId, input.lease.token);
    return {
      cte: `lease as (select 1 from email_bulk where workspace_id = ? and id = ? and lease = ? for share), `,
      cond: ' and exists (select 1 from lease)',
    };
  };

  /**
   * The claim part of a step statement (CTEs `ins` and `req`, after the fence): fresh claims inserted, failed ones
   * queued again, each only while the lease is this attempt's. `out` has undefined for a message that cannot be sent.
   */
  const claimParts = (group: Array<BulkItem | Claimed>, cond: string, params: unknown[]) => {
    const at = new Date();
    const out = group.map((g): Claimed | undefined => {
      if ('id' in g) return g;
      const v = prepare(g);
      if (!v) return undefined;
      const id = newId(at);
      return { ...v, id, activityId: newId(at), messageId: `<${id}@${domain}>`, at };
    });
    const fresh = out.filter((c, i): c is Claimed => !!c && !('id' in group[i]!));
    const again = out.filter((c, i): c is Claimed => !!c && 'id' in group[i]!);
    const ctes: [string, string][] = [];
    if (fresh.length) {
      const insert = insertRowsSql(
        'outbound_message',
        fresh.map((c) =>
          outboundClaimRow(
            ctx,
            { channel: 'email', idempotencyKey: c.msg.key, source: 'api', recipients: c.mail.to.map((m) => m.address) },
            { outboundId: c.id, activityId: c.activityId, at },
          ),
        ),
        params,
      );
      ctes.push(['ins', `${insert} where true${cond} returning id`]);
    }
    if (again.length) {
      params.push(at, at, ws, json(again.map((c) => c.id)));
      ctes.push([
        'req',
        `update outbound_message set status = 'queued', claimed_at = ?, attempts = attempts + 1, error = null, updated_at = ?` +
          ` where workspace_id = ? and id in (select jsonb_array_elements_text(?::jsonb)) and status = 'failed'${cond} returning id`,
      ]);
    }
    return { out, ctes, count: fresh.length + again.length };
  };

  /** One sender's step: the outcome of its last message and/or the claim of its next. */
  type Step = { result?: SendResult; next?: BulkItem | Claimed };
  /**
   * The steps of several senders in one statement: their outcomes recorded and their next messages claimed together, so
   * a sender's next claim commits with its last outcome and its open claims never exceed one. Each gets its claim
   * (undefined: its message cannot be sent or another attempt requeued it first) or LeaseLost (the outcomes are
   * recorded all the same).
   */
  const stepGroup = async (steps: Step[]): Promise<Array<Claimed | LeaseLost | undefined>> => {
    const params: unknown[] = [];
    const nexts = steps.filter((s) => s.next).map((s) => s.next!);
    const { cte, cond } = nexts.length ? fence(params) : { cte: '', cond: '' };
    const outcome = outcomePartsSql(
      ctx,
      sendOf,
      steps.filter((s) => s.result).map((s) => s.result!),
      params,
    );
    const claim = claimParts(nexts, cond, params);
    const ctes = [...outcome.ctes, ...claim.ctes];
    const select =
      claim.ctes.map(([name]) => `select id from ${name}`).join(' union all ') || 'select null::text as id where false';
    const rows = ctes.length
      ? await executeLean<{ id: string }>(
          em,
          `with ${cte}${ctes.map(([name, sql]) => `${name} as (${sql})`).join(', ')} ${select}`,
          params,
          { prepare: true },
        )
      : [];
    for (const o of outcome.decided) decide(o);
    // Fewer claims than asked: the lease is gone (no claim was written: every part had the same check) or a failed
    // claim was claimed again elsewhere. Hand nothing over that was not claimed now.
    const lost = input.lease && claim.count && !rows.length ? new LeaseLost() : undefined;
    const claimedNow = rows.length < claim.count ? new Set(rows.map((r) => r.id)) : undefined;
    let i = 0;
    return steps.map((s) => {
      if (!s.next) return undefined;
      const c = claim.out[i++];
      return lost ?? (c && (!claimedNow || claimedNow.has(c.id)) ? c : undefined);
    });
  };
  // Two statements at a time: a step waits for less than two statements' time, not the one under way and its own.
  const step = groupCommit(stepGroup, { inFlight: 2 });

  // Senders take work in order. Each sender's step records the outcome of its last message and claims its next in one
  // statement, so the claims open at any moment (the messages that may be with the mail server without a recorded
  // outcome) are at most one per sender.
  const work: Array<BulkItem | Claimed> = [...retried, ...fresh];
  let next = 0;
  let failure: unknown;
  const sender = async (): Promise<void> => {
    let last: SendResult | undefined;
    try {
      for (;;) {
        const w = failure === undefined && !capReached && next < work.length ? work[next++]! : undefined;
        if (!w) break;
        const unit = capped && !('id' in w);
        if (unit && !(await takeUnit())) {
          // Not claimed: it and the rest of the batch stay pending until the cap's window ends.
          if (last) await step({ result: last });
          last = undefined;
          break;
        }
        // A paced send waits for its turn here: the last outcome is recorded meanwhile, not held back by the wait.
        if (last && deps.throttle.paced) {
          const done = step({ result: last });
          last = undefined;
          await Promise.all([deps.throttle.take(account._id), done]);
        } else await deps.throttle.take(account._id);
        if (failure !== undefined) break;
        const r = await step({ result: last, next: w });
        last = undefined;
        deps.heartbeat?.(progress);
        if (unit && !(r && !(r instanceof LeaseLost))) await releaseMailboxQuota(em.fork(), ws, caps);
        if (r instanceof LeaseLost) throw r;
        if (!r) continue;
        last = await handOver(r);
      }
      // Not recorded (the database failed): the claim stays open and the next attempt counts it as possibly sent.
      if (last) await step({ result: last });
      deps.heartbeat?.(progress);
    } catch (err) {
      failure ??= err;
    }
  };
  /** Sends one claimed message through the pooled transport: its result with the time the server accepted it. */
  const handOver = async (c: Claimed): Promise<SendResult> => {
    const html =
      c.mail.html && input.trackOpens && deps.email.tracking
        ? addTracking(c.mail.html, deps.email.tracking, ws, c.id)
        : c.mail.html;
    try {
      const sent = await transport.send({
        from: c.mail.from,
        to: c.mail.to,
        subject: c.mail.subject,
        messageId: c.messageId,
        text: c.mail.text,
        html,
      });
      return { c, sent, acceptedAt: new Date() };
    } catch (err) {
      return { c, err };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency, work.length)) }, sender));
  if (failure !== undefined) throw failure;
  return input.items.map(
    (i) =>
      outcomes.get(i.recipientId) ?? {
        recipientId: i.recipientId,
        status: 'retry',
        ...(capReached ? { retryAt: capReached.retryAt } : {}),
      },
  );
}
