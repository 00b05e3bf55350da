/**
 * The claims an earlier attempt of a bulk send left (email/bulk-send.ts): sent ones are replayed, failed ones go
 * again, open ones are `unknown` (at once when the caller holds the send's lease, which fences every earlier attempt
 * off; else once older than the stale window) and get their e-mail and timeline rows.
 */
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { ValidEmail } from './email.service';
import { OutboundMessage } from '../messaging';
import { executeAsOne } from '../../platform/orm/lean';
import {
  outcomeRowsSql,
  type BulkItem,
  type BulkMessage,
  type BulkOutcome,
  type Claimed,
  type Outcome,
} from './bulk-rows';

type Rendered = { msg: BulkMessage; mail: ValidEmail };

/**
 * Decides the items an earlier attempt claimed (through `decide`) and returns the rest: the failed claims to send
 * again (rendered, with their claim) and the items never claimed. `ctx.em` must be a workspace-bound fork outside any
 * transaction.
 */
export async function resumeClaims(
  ctx: Ctx,
  input: { items: BulkItem[]; firstStart?: boolean; lease?: { bulkId: string; token: string } },
  opts: {
    staleClaimMs: number;
    /** The sending mailbox's domain (message ids). */
    domain: string;
    sendOf: { accountId: string; bulkRef: string; trackOpens: boolean };
    /** Renders and checks one recipient's message (throws a DomainError for a message that cannot be sent). */
    render: (item: BulkItem) => Rendered;
    /** render(), where a message that cannot be sent fails its recipient (undefined). */
    prepare: (item: BulkItem) => Rendered | undefined;
    decide: (o: BulkOutcome) => void;
  },
): Promise<{ retried: Claimed[]; fresh: BulkItem[] }> {
  const { em } = ctx;
  const ws = ctx.actor.workspaceId;
  const existing = new Map(
    (input.items.length && !input.firstStart
      ? await em.find(OutboundMessage, { idempotencyKey: { $in: input.items.map((i) => i.key) } })
      : []
    ).map((o) => [o.idempotencyKey!, o]),
  );
  // Holding the lease, every open claim is abandoned: the attempt that made it can claim nothing more.
  const staleBefore = input.lease ? Infinity : Date.now() - opts.staleClaimMs;
  const retried: Claimed[] = [];
  const fresh: BulkItem[] = [];
  const abandoned: { item: BulkItem; claim: OutboundMessage }[] = [];
  const claimedOf = (v: Rendered, o: OutboundMessage): Claimed => ({
    ...v,
    id: o._id,
    activityId: o.activityId,
    messageId: `<${o._id}@${opts.domain}>`,
    at: o.createdAt,
  });
  for (const item of input.items) {
    const o = existing.get(item.key);
    if (!o) fresh.push(item);
    else if (o.status === 'sent')
      opts.decide({ recipientId: item.recipientId, status: 'sent', emailId: o._id, sentAt: o.sentAt ?? o.updatedAt });
    else if (o.status === 'unknown' || (o.status === 'queued' && o.claimedAt.getTime() < staleBefore)) {
      abandoned.push({ item, claim: o });
      opts.decide({
        recipientId: item.recipientId,
        status: 'unknown',
        emailId: o._id,
        error:
          'a previous attempt stopped after the message may have been handed to the mail server; it is not sent again',
      });
    } else if (o.status === 'queued') opts.decide({ recipientId: item.recipientId, status: 'retry' });
    else {
      const v = opts.prepare(item);
      if (v) retried.push(claimedOf(v, o));
    }
  }

  // Only after a crash, in one statement: abandoned claims become unknown and get their e-mail and timeline rows (the
  // outcome that would have written them never came). Failed ones go again when a sender claims them.
  if (abandoned.length) {
    const now = new Date();
    const note = 'the attempt stopped before its outcome was recorded';
    const ids = abandoned.map((a) => a.claim._id);
    const params: unknown[] = [note, now, ws, ...ids];
    const ctes: [string, string][] = [
      [
        'u',
        `update outbound_message set status = 'unknown', error = ?, updated_at = ? where workspace_id = ? and id in (${ids.map(() => '?').join(',')}) and status = 'queued'`,
      ],
    ];
    const rows: { c: Claimed; o: Outcome }[] = [];
    for (const { item, claim: o } of abandoned) {
      let v: Rendered;
      try {
        v = opts.render(item);
      } catch (err) {
        // The message no longer renders (deterministic, so it did when claimed; its data changed since): the claim
        // stays unknown without rows.
        if (err instanceof DomainError) continue;
        throw err;
      }
      rows.push({ c: claimedOf(v, o), o: { status: 'unknown', pid: null, result: null, error: note } });
    }
    if (rows.length) ctes.push(...outcomeRowsSql(ctx, rows, opts.sendOf, { at: now, onlyQueued: true }, params));
    await executeAsOne(em, ctes, params);
  }
  return { retried, fresh };
}
