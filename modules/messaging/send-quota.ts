/**
 * Mailbox caps (`maxPerHour`, `maxPerDay` on a connected e-mail account), shared by every sender:
 * sequence steps, bulk sends and single sends, across all API and worker processes. The ledger is
 * one Postgres row per mailbox and calendar hour / day (UTC, the database clock): a send takes one
 * unit of each with a conditional upsert (`… on conflict do update set count = count + 1 where
 * count < cap returning count`), in the same transaction as the send's claim. No row returned means
 * the cap is reached: the transaction rolls back (the claim and the other period's unit with it) and
 * the send is refused with `rate_limited` and the instant the next window opens. Row locks make it
 * exact under any concurrency; nothing is counted in a process.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../platform/errors';
import { executeLean } from '../../platform/orm/lean';

export interface MailboxCaps {
  accountId: string;
  maxPerHour: number | null;
  maxPerDay: number | null;
}

export const MAX_MAILBOX_CAP = 1_000_000;

export const hasCaps = (c: MailboxCaps | null | undefined): c is MailboxCaps =>
  Boolean(c && (c.maxPerHour !== null || c.maxPerDay !== null));

const PERIODS = [
  { period: 'hour', cap: (c: MailboxCaps) => c.maxPerHour },
  { period: 'day', cap: (c: MailboxCaps) => c.maxPerDay },
] as const;

/** The refusal of a send whose mailbox is at its cap: `retryAt` is when the full window ends. */
export class MailboxCapReached extends DomainError {
  constructor(
    readonly accountId: string,
    readonly period: 'hour' | 'day',
    readonly cap: number,
    readonly retryAt: Date,
  ) {
    const wait = Math.max(1, Math.ceil((retryAt.getTime() - Date.now()) / 1000));
    super(
      'rate_limited',
      `the mailbox has sent its ${cap} e-mails of this ${period} (max per ${period}); the next send may go out at ${retryAt.toISOString()}`,
      { reason: 'mailbox_cap', accountId, period, cap, retryAt: retryAt.toISOString() },
      { 'Retry-After': String(wait) },
    );
  }
}

/**
 * Takes one unit of each capped period of the mailbox. Must run inside the caller's transaction
 * (the claim's): a refusal throws MailboxCapReached, which rolls it back.
 */
export async function takeMailboxQuota(em: EntityManager, workspaceId: string, caps: MailboxCaps): Promise<void> {
  if (!em.isInTransaction()) throw new Error('takeMailboxQuota runs inside the send claim transaction');
  for (const { period, cap: capOf } of PERIODS) {
    const cap = capOf(caps);
    if (cap === null) continue;
    const rows = await executeLean<{ count: number; next: Date | string }>(
      em,
      `insert into email_send_quota as q (workspace_id, account_id, period, window_start, count)
       values (?, ?, ?, date_trunc(?, now() at time zone 'UTC') at time zone 'UTC', 1)
       on conflict (workspace_id, account_id, period, window_start)
       do update set count = q.count + 1 where q.count < ?
       returning q.count`,
      [workspaceId, caps.accountId, period, period, cap],
    );
    if (!rows.length) {
      const [{ next }] = await executeLean<{ next: Date | string }>(
        em,
        `select (date_trunc(?, now() at time zone 'UTC') + ?::interval) at time zone 'UTC' as next`,
        [period, `1 ${period}`],
      );
      throw new MailboxCapReached(caps.accountId, period, cap, new Date(next));
    }
  }
}

/** How many sends each capped period of the mailbox has taken so far (tests, the account view). */
export async function mailboxQuotaUsed(
  em: EntityManager,
  workspaceId: string,
  accountId: string,
): Promise<{ hour: number; day: number }> {
  const rows = await executeLean<{ period: 'hour' | 'day'; count: number }>(
    em,
    `select period, count from email_send_quota where workspace_id = ? and account_id = ?
       and window_start = date_trunc(period, now() at time zone 'UTC') at time zone 'UTC'`,
    [workspaceId, accountId],
  );
  return {
    hour: rows.find((r) => r.period === 'hour')?.count ?? 0,
    day: rows.find((r) => r.period === 'day')?.count ?? 0,
  };
}

/**
 * Gives back the unit takeMailboxQuota took for a message that was then not claimed after all (bulk sends take
 * their unit just before the claim statement they share with other senders: bulk-send.ts).
 */
export async function releaseMailboxQuota(em: EntityManager, workspaceId: string, caps: MailboxCaps): Promise<void> {
  const periods = PERIODS.filter((p) => p.cap(caps) !== null).map((p) => p.period);
  if (!periods.length) return;
  await executeLean(
    em,
    `update email_send_quota set count = count - 1 where workspace_id = ? and account_id = ?
       and period in (${periods.map(() => '?').join(', ')})
       and window_start = date_trunc(period, now() at time zone 'UTC') at time zone 'UTC' and count > 0`,
    [workspaceId, caps.accountId, ...periods],
  );
}
