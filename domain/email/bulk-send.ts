/**
 * The batched send of bulk e-mail: the same rows and guarantees as one sendEmail per recipient
 * (outbound claim under `bulk:<queueId>:<index>` committed before SMTP sees the message, an
 * `email` row sharing its id, a timeline activity, `activity_created` and `email_sent` events), but
 * written a batch at a time: one transaction claims the whole batch, the messages go out through
 * the mailbox's pooled transport, one transaction records every outcome. A rerun after a crash
 * finds the claims: sent ones are replayed, fresh ones wait, abandoned ones become `unknown`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Activity } from '../timeline/activity.entity';
import { serializeActivity } from '../timeline/timeline.service';
import type { Ctx } from '../context';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { formatMailbox } from '../messaging/addresses';
import { DeliveryError } from '../messaging/delivery-error';
import { validateEmail, type EmailDeps, type ValidEmail } from '../messaging/email.service';
import { htmlToText, truncate } from '../messaging/html-text';
import { OutboundMessage } from '../messaging/outbound-message.entity';
import { DEFAULT_STALE_CLAIM_MS } from '../messaging/outbound.service';
import type { EmailSendResult } from '../messaging/ports';
import { mapLimited } from '../shared/concurrency';
import type { SendThrottle } from './bulk-throttle';
import { accountForSend } from './email-accounts.service';
import { Email } from './email.entity';
import { addTracking } from './tracking';

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

export type BulkOutcome =
  | { recipientId: string; status: 'sent'; emailId: string }
  | { recipientId: string; status: 'failed' | 'unknown'; emailId: string | null; error: string }
  /** Not sent now, nothing lost: the mail server was unreachable or a previous attempt is still in flight. */
  | { recipientId: string; status: 'retry' };

interface Claimed { msg: BulkMessage; mail: ValidEmail; id: string; activityId: string; messageId: string }

const MAX_TIMELINE_TEXT = 20_000;
const json = (v: unknown): string => JSON.stringify(v);

function mainRecord(links: BulkMessage['links']): { entityType: string | null; entityId: string | null } {
  if (links.personId) return { entityType: 'person', entityId: links.personId };
  if (links.companyId) return { entityType: 'company', entityId: links.companyId };
  return { entityType: null, entityId: null };
}

function outboxRow(ctx: Ctx, at: Date, type: string, entityType: string, entityId: string, payload: Record<string, unknown>) {
  return {
    eventId: newId(at), workspaceId: ctx.actor.workspaceId, type, entityType, entityId, actorUserId: ctx.actor.userId, payload,
    occurredAt: at, availableAt: at, attempts: 0, deliveredTo: [], processedAt: null,
  };
}

const column = (key: string): string => (key === '_id' ? 'id' : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/**
 * One multi-row insert from JSON (the rows' keys are entity property names): a single statement
 * and no per-row ORM work, which is most of a batch's CPU otherwise. Columns come from the first row.
 */
async function insertRows(em: EntityManager, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const keys = Object.keys(rows[0]!);
  const cols = keys.map((k) => `"${column(k)}"`).join(', ');
  const data = JSON.stringify(rows.map((r) => Object.fromEntries(keys.map((k) => [column(k), r[k]]))));
  await em.execute(`insert into "${table}" (${cols}) select ${cols} from jsonb_populate_recordset(null::"${table}", ?::jsonb)`, [data]);
}

/** Claims, sends and records one batch. `ctx.em` must be a workspace-bound fork outside any transaction. */
export async function sendBulkMessages(
  ctx: Ctx,
  input: { accountId: string; trackOpens: boolean; bulkRef: string; messages: BulkMessage[] },
  deps: { email: EmailDeps; throttle: SendThrottle; concurrency: number; heartbeat?: () => void },
): Promise<BulkOutcome[]> {
  const { em } = ctx;
  const account = await accountForSend(ctx, input.accountId, { asUser: false });
  if (!deps.email.accounts) throw new DomainError('not_configured', 'sending from connected e-mail accounts is not available in this process');
  const { transport, from } = deps.email.accounts.forAccount(account);
  const outcomes = new Map<string, BulkOutcome>();
  const valid: { msg: BulkMessage; mail: ValidEmail }[] = [];
  for (const msg of input.messages) {
    try {
      valid.push({ msg, mail: validateEmail({ to: [msg.to], subject: msg.subject, html: msg.html, text: msg.text, links: msg.links, idempotencyKey: msg.key, source: 'api' }, formatMailbox(from)) });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      outcomes.set(msg.recipientId, { recipientId: msg.recipientId, status: 'failed', emailId: null, error: err.message });
    }
  }

  // Claims a previous attempt left: sent ones replay, failed ones go again, the rest is decided below.
  const existing = new Map((valid.length ? await em.find(OutboundMessage, { idempotencyKey: { $in: valid.map((v) => v.msg.key) } }) : []).map((o) => [o.idempotencyKey!, o]));
  const staleBefore = Date.now() - (deps.email.staleClaimMs ?? DEFAULT_STALE_CLAIM_MS);
  const toSend: Claimed[] = [];
  const fresh: { msg: BulkMessage; mail: ValidEmail }[] = [];
  const abandoned: string[] = [];
  for (const v of valid) {
    const o = existing.get(v.msg.key);
    if (!o) fresh.push(v);
    else if (o.status === 'sent') outcomes.set(v.msg.recipientId, { recipientId: v.msg.recipientId, status: 'sent', emailId: o._id });
    else if (o.status === 'unknown' || (o.status === 'queued' && o.claimedAt.getTime() < staleBefore)) {
      abandoned.push(o._id);
      outcomes.set(v.msg.recipientId, { recipientId: v.msg.recipientId, status: 'unknown', emailId: o._id, error: 'a previous attempt stopped after the message may have been handed to the mail server; it is not sent again' });
    } else if (o.status === 'queued') outcomes.set(v.msg.recipientId, { recipientId: v.msg.recipientId, status: 'retry' });
    else toSend.push({ ...v, id: o._id, activityId: o.activityId, messageId: `<${o._id}@${from.address.slice(from.address.lastIndexOf('@') + 1)}>` });
  }

  const now = new Date();
  await em.transactional(async (tem) => {
    if (abandoned.length) {
      const note = 'the attempt stopped before its outcome was recorded';
      await tem.nativeUpdate(OutboundMessage, { _id: { $in: abandoned }, status: 'queued' }, { status: 'unknown', error: note, updatedAt: now });
      await tem.nativeUpdate(Email, { _id: { $in: abandoned }, status: 'queued' }, { status: 'unknown', error: note, updatedAt: now });
    }
    // Failed claims go again (nothing left the last time).
    const retried = toSend.map((c) => c.id);
    if (retried.length) await tem.execute(`update outbound_message set status = 'queued', claimed_at = ?, attempts = attempts + 1, error = null, updated_at = ? where workspace_id = ? and id in (${retried.map(() => '?').join(',')}) and status = 'failed'`, [now, now, ctx.actor.workspaceId, ...retried]);
    if (!fresh.length) return;
    const outbound: Record<string, unknown>[] = [];
    const activities: Record<string, unknown>[] = [];
    const emails: Record<string, unknown>[] = [];
    const events: Record<string, unknown>[] = [];
    for (const v of fresh) {
      const id = newId(now);
      const activityId = newId(now);
      const messageId = `<${id}@${from.address.slice(from.address.lastIndexOf('@') + 1)}>`;
      const to = v.mail.to.map((m) => m.address);
      const metadata = { from: formatMailbox(v.mail.from), to, cc: [], bcc: [], source: 'api', messageId: null, accountId: account._id, outboundMessageId: id, status: 'queued' };
      outbound.push({
        _id: id, workspaceId: ctx.actor.workspaceId, channel: 'email', idempotencyKey: v.msg.key, status: 'queued', source: 'api', recipients: to, activityId,
        providerMessageId: null, result: null, error: null, attempts: 1, claimedAt: now, sentAt: null, createdAt: now, updatedAt: now,
      });
      const activity = {
        _id: activityId, workspaceId: ctx.actor.workspaceId, createdAt: now, updatedAt: now, type: 'email', system: false, summary: v.mail.subject,
        description: truncate(v.mail.text?.trim() || htmlToText(v.mail.html ?? ''), MAX_TIMELINE_TEXT),
        companyId: v.msg.links.companyId ?? null, personId: v.msg.links.personId ?? null, dealId: null, leadId: null, ...mainRecord(v.msg.links),
        noteRef: null, callRef: null, taskRef: null, date: now, metadata, userId: ctx.actor.userId, ownerId: ctx.actor.userId,
      };
      activities.push(activity);
      emails.push({
        _id: id, workspaceId: ctx.actor.workspaceId, createdAt: now, updatedAt: now, accountId: account._id, direction: 'outbound', status: 'queued',
        fromAddress: formatMailbox(v.mail.from), to, cc: [], bcc: [], subject: v.mail.subject, html: v.mail.html ?? null, text: v.mail.text ?? null,
        messageId, inReplyTo: null, references: [], threadId: id, personId: v.msg.links.personId ?? null, companyId: v.msg.links.companyId ?? null, dealId: null, leadId: null,
        source: 'api', sourceRef: input.bulkRef, activityId, trackOpens: input.trackOpens, openCount: 0, clickCount: 0, firstOpenedAt: null, error: null,
        userId: ctx.actor.userId, date: now, calendarInvite: null,
      });
      events.push(outboxRow(ctx, now, 'activity_created', 'activity', activityId, { activity: serializeActivity(activity as unknown as Activity) }));
      toSend.push({ ...v, id, activityId, messageId });
    }
    await insertRows(tem, 'outbound_message', outbound);
    await insertRows(tem, 'activity', activities);
    await insertRows(tem, 'email', emails);
    await insertRows(tem, 'outbox_event', events);
  });

  // The claims are committed: hand the messages to SMTP (pooled connections, paced per mailbox).
  const results = await mapLimited(toSend, deps.concurrency, async (c): Promise<{ c: Claimed; sent?: EmailSendResult; err?: unknown }> => {
    await deps.throttle.take(account._id);
    try {
      const sent = await transport.send({
        from: c.mail.from, to: c.mail.to, subject: c.mail.subject, messageId: c.messageId, text: c.mail.text,
        html: c.mail.html && input.trackOpens && deps.email.tracking ? addTracking(c.mail.html, deps.email.tracking, ctx.actor.workspaceId, c.id) : c.mail.html,
      });
      return { c, sent };
    } catch (err) {
      return { c, err };
    } finally {
      deps.heartbeat?.();
    }
  });

  const at = new Date();
  const activityOf = new Map(toSend.map((c) => [c.id, c.activityId]));
  const rows: { id: string; status: string; pid: string | null; result: Record<string, unknown> | null; error: string | null }[] = [];
  const events: Record<string, unknown>[] = [];
  for (const { c, sent, err } of results) {
    if (sent) {
      rows.push({ id: c.id, status: 'sent', pid: sent.messageId || c.messageId, result: { accepted: sent.accepted, rejected: sent.rejected }, error: null });
      const links = Object.fromEntries(Object.entries(c.msg.links).filter(([, v]) => v));
      events.push(outboxRow(ctx, at, 'email_sent', 'email', c.id, {
        outboundMessageId: c.id, activityId: c.activityId,
        email: { _id: c.id, subject: c.mail.subject, from: formatMailbox(c.mail.from), to: c.mail.to.map((m) => m.address), threadId: c.id, messageId: sent.messageId || c.messageId },
        links, source: 'api', sourceRef: input.bulkRef,
      }));
      outcomes.set(c.msg.recipientId, { recipientId: c.msg.recipientId, status: 'sent', emailId: c.id });
      continue;
    }
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
    const unknown = err instanceof DeliveryError && err.outcome === 'unknown';
    rows.push({ id: c.id, status: unknown ? 'unknown' : 'failed', pid: null, result: null, error: message });
    // A refusal for good fails the recipient; an unreachable server leaves it for the next attempt (the claim is `failed`, so it goes again).
    const transient = err instanceof DeliveryError && err.outcome === 'not_sent' && !err.permanent;
    outcomes.set(c.msg.recipientId, transient ? { recipientId: c.msg.recipientId, status: 'retry' } : { recipientId: c.msg.recipientId, status: unknown ? 'unknown' : 'failed', emailId: c.id, error: message });
  }
  if (rows.length) {
    await em.transactional(async (tem) => {
      const ws = ctx.actor.workspaceId;
      const data = json(rows);
      // Sent is recorded even over a row meanwhile marked unknown: it was sent.
      await tem.execute(`update outbound_message o set status = v.status, provider_message_id = v.pid, result = v.result, error = v.error, updated_at = ?, sent_at = case when v.status = 'sent' then ?::timestamptz else o.sent_at end
        from jsonb_to_recordset(?::jsonb) as v(id text, status text, pid text, result jsonb, error text) where o.workspace_id = ? and o.id = v.id and (v.status = 'sent' or o.status = 'queued')`, [at, at, data, ws]);
      await tem.execute(`update email e set status = v.status, message_id = coalesce(v.pid, e.message_id), error = v.error, updated_at = ?, date = case when v.status = 'sent' then ?::timestamptz else e.date end
        from jsonb_to_recordset(?::jsonb) as v(id text, status text, pid text, error text) where e.workspace_id = ? and e.id = v.id`, [at, at, data, ws]);
      await tem.execute(`update activity a set metadata = a.metadata || jsonb_build_object('status', v.status, 'messageId', v.pid, 'error', left(v.error, 500)) || coalesce(v.result, '{}'::jsonb), updated_at = ?
        from jsonb_to_recordset(?::jsonb) as v(aid text, status text, pid text, result jsonb, error text) where a.workspace_id = ? and a.id = v.aid`,
      [at, json(rows.map((r) => ({ ...r, aid: activityOf.get(r.id) }))), ws]);
      if (events.length) await insertRows(tem, 'outbox_event', events);
    });
  }
  return input.messages.map((m) => outcomes.get(m.recipientId) ?? { recipientId: m.recipientId, status: 'retry' });
}
