import type { Ctx } from '../../platform/context';
import { assertRefs } from '../timeline';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { executeLean, insertRowsSql, leanQuery, type FullRow } from '../../platform/orm/lean';
import type { EventPayload } from '../../platform/outbox/catalog';
import { outboxRow } from '../../platform/outbox/emit';
import { inTransaction } from '../../platform/shared/tx';
import { plainOf } from '../../platform/shared/views';
import { DeliveryError } from '../../platform/ports/delivery-error.port';
import { OutboundMessage, type OutboundChannel, type OutboundStatus } from './outbound-message.entity';
import { claimRows, type ClaimRow, type MessageLinks, type OutboundDraft } from './outbound-rows';
import { hasCaps, takeMailboxQuota } from './send-quota';

export {
  activityCreatedRow,
  claimActivityRow,
  claimRows,
  MESSAGE_SOURCES,
  outboundClaimRow,
  type ClaimRow,
  type MessageLinks,
  type MessageSource,
  type OutboundDraft,
} from './outbound-rows';

/**
 * Idempotent hand-over of one message to a provider (shared by e-mail and SMS):
 * 1. claim: insert the outbound row as `queued` together with its timeline row, committed before
 *    the provider is called (a unique key per workspace makes a second claim see the first);
 * 2. the caller sends; 3. the row becomes `sent` (with the provider id) or `failed`/`unknown`.
 * A key already `sent` returns the stored result; `failed` is sent again; `queued` younger than the
 * stale window is in progress (409, retry later); `queued` older than it, or `unknown`, is never
 * sent again automatically (at most once): the attempt may have handed it over before it died.
 */

/** Longer than any provider attempt can take (SMTP and gateway timeouts are well under a minute). */
export const DEFAULT_STALE_CLAIM_MS = 5 * 60_000;
export const MAX_IDEMPOTENCY_KEY = 200;

export interface OutboundRow {
  _id: string;
  activityId: string;
  status: OutboundStatus;
  attempts: number;
  providerMessageId: string | null;
  result: Record<string, unknown> | null;
}

export type Claim = { kind: 'claimed'; row: OutboundRow } | { kind: 'sent'; row: OutboundRow };

const LABEL: Record<OutboundChannel, string> = { email: 'e-mail', sms: 'SMS' };

/** 400 for a malformed key; keys are caller-chosen strings such as `<executionId>:<nodeId>`. */
export function checkIdempotencyKey(key: string | undefined): string | null {
  if (key === undefined) return null;
  if (!key.length || key.length > MAX_IDEMPOTENCY_KEY || !/^[\x21-\x7e]+$/.test(key)) {
    throw new DomainError(
      'validation',
      `idempotencyKey: must be 1-${MAX_IDEMPOTENCY_KEY} printable ASCII characters without spaces`,
    );
  }
  return key;
}

/** Links must name records of the caller's workspace (400 otherwise); they pick the row's main record. */
export async function checkLinks(ctx: Ctx, links: MessageLinks): Promise<void> {
  await assertRefs(ctx, [
    { field: 'links.leadId', kind: 'lead', id: links.leadId },
    { field: 'links.dealId', kind: 'deal', id: links.dealId },
    { field: 'links.personId', kind: 'person', id: links.personId },
    { field: 'links.companyId', kind: 'company', id: links.companyId },
  ]);
}

/**
 * The claim in one statement (data-modifying CTEs: atomic, one round trip): the outbound row (on
 * conflict with an earlier claim of the key: nothing), and only if it was inserted the timeline
 * row, the caller's rows and the `activity_created` event. Null when the key was claimed before.
 */
async function insertClaim(ctx: Ctx, draft: OutboundDraft): Promise<OutboundRow | null> {
  // Changes the caller left in the entity manager are committed first, as the claim's transaction did before.
  await ctx.em.flush();
  const at = new Date();
  const ids = { outboundId: newId(at), activityId: newId(at), at };
  const { outbound, activity, event } = claimRows(ctx, draft, ids);
  const rows: ClaimRow[] = [
    { table: 'activity', row: activity },
    ...(draft.onClaim?.(ids) ?? []),
    { table: 'outbox_event', row: event },
  ];
  const params: unknown[] = [];
  const claim = `${insertRowsSql('outbound_message', [outbound], params)} on conflict (workspace_id, idempotency_key) do nothing returning id`;
  const rest = rows.map(
    (r, i) => `w${i} as (${insertRowsSql(r.table, [r.row], params)} where exists (select 1 from claimed))`,
  );
  const sql = `with claimed as (${claim}), ${rest.join(', ')} select count(*)::int as n from claimed`;
  const quota = draft.quota;
  if (hasCaps(quota)) {
    // A capped mailbox: the claim and its quota units commit together, or neither (MailboxCapReached).
    const taken = await inTransaction(ctx, async () => {
      const res = await executeLean<{ n: number }>(ctx.em, sql, params);
      if (!res[0]?.n) return false;
      await takeMailboxQuota(ctx.em, ctx.actor.workspaceId, quota);
      return true;
    });
    if (!taken) return null;
  } else {
    const res = await executeLean<{ n: number }>(ctx.em, sql, params);
    if (!res[0]?.n) return null;
  }
  return {
    _id: ids.outboundId,
    activityId: ids.activityId,
    status: 'queued',
    attempts: 1,
    providerMessageId: null,
    result: null,
  };
}

/** Sets the status (and more) of the outbound row and mirrors it into its timeline row, in one transaction. */
async function setStatus(
  ctx: Ctx,
  row: OutboundRow,
  where: Record<string, unknown>,
  set: Record<string, unknown>,
  activityPatch: { metadata: Record<string, unknown>; summary?: string; description?: string | null },
): Promise<boolean> {
  return inTransaction(ctx, async () => {
    const changed = await ctx.em.nativeUpdate(
      OutboundMessage,
      { _id: row._id, ...where },
      { ...set, updatedAt: new Date() },
    );
    if (!changed) return false;
    // One statement: the metadata keys merged (jsonb ||), as the timeline row's own update would.
    const values: unknown[] = [JSON.stringify(activityPatch.metadata)];
    let assign = "metadata = coalesce(metadata, '{}'::jsonb) || $1::jsonb";
    if (activityPatch.summary !== undefined) {
      values.push(activityPatch.summary);
      assign += `, summary = $${values.length}`;
    }
    if (activityPatch.description !== undefined) {
      values.push(activityPatch.description);
      assign += `, description = $${values.length}`;
    }
    values.push(new Date(), ctx.actor.workspaceId, row.activityId);
    const n = values.length;
    await leanQuery(
      ctx.em,
      `update activity set ${assign}, updated_at = $${n - 2} where workspace_id = $${n - 1} and id = $${n}`,
      values,
    );
    return true;
  });
}

const rowOf = (m: OutboundMessage): OutboundRow =>
  plainOf(m, ['_id', 'activityId', 'status', 'attempts', 'providerMessageId', 'result']);

/**
 * The stored result of a key already sent on this channel: a retry replays it before re-checking links that may since
 * have changed.
 */
export async function findSent(
  ctx: Ctx,
  channel: OutboundChannel,
  idempotencyKey: string | null,
): Promise<OutboundRow | null> {
  if (!idempotencyKey) return null;
  const existing = await ctx.em.findOne(
    OutboundMessage,
    { idempotencyKey, channel, status: 'sent' },
    { refresh: true },
  );
  return existing ? rowOf(existing) : null;
}

/** Claims the send for this key (see the module comment); throws 409 when it must not be sent now. */
export async function claimOutbound(
  ctx: Ctx,
  draft: OutboundDraft,
  staleClaimMs = DEFAULT_STALE_CLAIM_MS,
): Promise<Claim> {
  // The claim has to be committed before the provider sees the message; inside a caller's
  // transaction it would not be, and a concurrent retry could send a second copy.
  if (ctx.em.isInTransaction())
    throw new Error('messaging: send outside a transaction (the claim must commit before the provider is called)');
  const label = LABEL[draft.channel];
  for (let round = 0; round < 3; round++) {
    const inserted = await insertClaim(ctx, draft);
    if (inserted) return { kind: 'claimed', row: inserted };
    const existing = await ctx.em.findOne(OutboundMessage, { idempotencyKey: draft.idempotencyKey }, { refresh: true });
    if (!existing) continue;
    const row = rowOf(existing);
    const key = draft.idempotencyKey;
    if (existing.channel !== draft.channel)
      throw new DomainError('conflict', `idempotencyKey "${key}" was already used for an ${LABEL[existing.channel]}`);
    if (existing.status === 'sent') return { kind: 'sent', row };
    if (existing.status === 'failed') {
      const now = new Date();
      const reclaimed = await setStatus(
        ctx,
        row,
        { status: 'failed' },
        {
          status: 'queued',
          claimedAt: now,
          attempts: existing.attempts + 1,
          error: null,
          recipients: draft.recipients,
        },
        {
          metadata: { ...draft.activity.metadata, status: 'queued', error: null },
          summary: draft.activity.summary,
          description: draft.activity.description,
        },
      );
      if (reclaimed) return { kind: 'claimed', row: { ...row, status: 'queued', attempts: existing.attempts + 1 } };
      continue;
    }
    if (existing.status === 'queued') {
      const cutoff = new Date(Date.now() - staleClaimMs);
      if (existing.claimedAt > cutoff) {
        throw new DomainError(
          'conflict',
          `an ${label} with idempotencyKey "${key}" is being sent right now; retry later`,
          { status: 'queued', retryable: true },
        );
      }
      const note = 'the attempt stopped before its outcome was recorded';
      const marked = await setStatus(
        ctx,
        row,
        { status: 'queued', claimedAt: existing.claimedAt },
        { status: 'unknown', error: note },
        { metadata: { status: 'unknown', error: note } },
      );
      if (!marked) continue;
    }
    throw new DomainError(
      'invalid_state',
      `the ${label} with idempotencyKey "${key}" may already have been sent (a previous attempt stopped after handing it to the provider and before recording the outcome); it is not sent again automatically`,
      { status: 'unknown', outboundMessageId: existing._id, retryable: false },
    );
  }
  throw new DomainError('conflict', `idempotencyKey "${draft.idempotencyKey}" is contended; retry later`, {
    retryable: true,
  });
}

/** A statement run together with another (as one of its CTEs), with its `?` parameters. */
export interface AlsoStatement {
  sql: string;
  params: unknown[];
}

/**
 * The provider accepted the message: the outbound row becomes `sent` (even when it was meanwhile
 * marked unknown: it was sent), its timeline row shows it, the channel's own record is updated
 * (`also`) and the event is written, all in one statement (data-modifying CTEs: atomic, one round trip).
 */
type SentEventName = 'email_sent' | 'sms_sent';
/** The sent event of a channel; recordSent adds the outbound message's and its timeline row's ids. */
export type SentEvent = {
  [N in SentEventName]: {
    type: N;
    entityType: OutboundChannel;
    payload: Omit<EventPayload<N>, 'outboundMessageId' | 'activityId'>;
  };
}[SentEventName];

export async function recordSent(
  ctx: Ctx,
  row: OutboundRow,
  sent: { providerMessageId: string | null; result: Record<string, unknown> },
  event: SentEvent,
  also: AlsoStatement[] = [],
): Promise<void> {
  const at = new Date();
  const ws = ctx.actor.workspaceId;
  const metadata = { status: 'sent', messageId: sent.providerMessageId, error: null, ...sent.result };
  const params: unknown[] = [sent.providerMessageId, JSON.stringify(sent.result), at, at, ws, row._id];
  const parts = [
    `o as (update outbound_message set status = 'sent', provider_message_id = ?, result = ?::jsonb, error = null,` +
      ` sent_at = ?, updated_at = ? where workspace_id = ? and id = ? returning id)`,
    `a as (update activity set metadata = coalesce(metadata, '{}'::jsonb) || ?::jsonb, updated_at = ?` +
      ` where workspace_id = ? and id = ? and exists (select 1 from o))`,
  ];
  params.push(JSON.stringify(metadata), at, ws, row.activityId);
  also.forEach((st, i) => {
    parts.push(`x${i} as (${st.sql})`);
    params.push(...st.params);
  });
  const insert = insertRowsSql(
    'outbox_event',
    [
      outboxRow(ctx, at, event.type, event.entityType, row._id, {
        outboundMessageId: row._id,
        activityId: row.activityId,
        ...event.payload,
      }),
    ],
    params,
  );
  await executeLean(ctx.em, `with ${parts.join(', ')} ${insert}`, params);
}

/** The provider failed: `failed` (may be sent again) or `unknown` (never again); returns the error to throw. */
export async function recordFailure(
  ctx: Ctx,
  row: OutboundRow,
  err: unknown,
  channel: OutboundChannel,
): Promise<unknown> {
  const unknown = err instanceof DeliveryError && err.outcome === 'unknown';
  const message = err instanceof Error ? err.message : String(err);
  const status: OutboundStatus = unknown ? 'unknown' : 'failed';
  await setStatus(
    ctx,
    row,
    { status: 'queued' },
    { status, error: message.slice(0, 2000) },
    { metadata: { status, error: message.slice(0, 500) } },
  );
  if (!unknown) return err;
  return new DomainError(
    'upstream_failed',
    `${message}; the ${LABEL[channel]} may have been delivered, so it is not sent again automatically`,
    { outcome: 'unknown', permanent: true, outboundMessageId: row._id },
  );
}
