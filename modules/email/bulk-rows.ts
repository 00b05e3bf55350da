/**
 * The rows a bulk send's recipient leaves behind with its outcome (email/bulk-send.ts): the e-mail
 * row and the timeline row as they stand then, written once (not written `queued` and updated).
 */
import type { Ctx } from '../../platform/context';
import { DeliveryError, activityCreatedRow, claimActivityRow, formatMailbox, type EmailSendResult } from '../messaging';
import { htmlToText, truncate } from '../../platform/shared/html-text';
import { MAX_TIMELINE_TEXT, type ValidEmail } from './email.service';
import { insertRowsSql } from '../../platform/orm/lean';
import { outboxRow } from '../../platform/outbox/emit';
import { outboundEmailRow } from './email-records';

/** A recipient's decided outcome, as its row records it. */
export type DecidedRecipient =
  | { recipientId: string; status: 'sent'; emailId: string; sentAt: Date }
  | { recipientId: string; status: 'failed' | 'unknown'; emailId: string | null; error: string };

const json = (v: unknown): string => JSON.stringify(v);

export type BulkOutcome =
  | DecidedRecipient
  /** Not sent now, nothing lost: the mail server was unreachable or a previous attempt is still in flight. */
  | {
      recipientId: string;
      status: 'retry';
      /** The mailbox's cap (maxPerHour / maxPerDay) is reached: the send goes on when its window ends. */
      retryAt?: Date;
    };

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
 * One recipient as the pipeline gets it: id and key now, the message rendered only when a sender
 * takes it, so rendering overlaps the sends before it.
 */
export interface BulkItem {
  recipientId: string;
  key: string;
  render(): BulkMessage;
}

export interface Claimed {
  msg: BulkMessage;
  mail: ValidEmail;
  id: string;
  activityId: string;
  messageId: string;
  /** When the claim was written: the e-mail and timeline rows are dated then. */
  at: Date;
}

/** What became of a claim, as its rows record it. */
export interface Outcome {
  status: 'sent' | 'failed' | 'unknown';
  pid: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  /** When the mail server accepted the message (sent only): the e-mail's date and the claim's sentAt. */
  acceptedAt?: Date;
}

/**
 * The CTEs that write the e-mail rows and timeline rows of `list` as they stand with their outcome:
 * inserted, with the timeline row's `activity_created` event, or updated where an earlier attempt
 * wrote them (a failed send tried again). `onlyQueued` updates only rows still `queued`: an
 * abandoned claim made before rows waited for the outcome has them from the claim on, and a row
 * that already records an outcome (an `unknown` with the mail server's error) keeps it.
 */
export function outcomeRowsSql(
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
      date: o.status === 'sent' ? (o.acceptedAt ?? written.at) : c.at,
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

/**
 * The recipient rows of decided outcomes (a CTE). A recipient recorded sent stays sent: an attempt that counted its
 * claim as possibly sent (unknown) does not overwrite it.
 */
export function recipientsSql(decided: DecidedRecipient[], at: Date, ws: string, params: unknown[]): string {
  params.push(
    at,
    json(
      decided.map((o) => ({
        id: o.recipientId,
        status: o.status,
        email_id: 'emailId' in o ? o.emailId : null,
        error: 'error' in o ? o.error : null,
        sent_at: o.status === 'sent' ? o.sentAt : null,
      })),
    ),
    ws,
  );
  return (
    `update email_bulk_recipient r set status = v.status, email_id = v.email_id, error = left(v.error, 2000), updated_at = ?, sent_at = v.sent_at` +
    ` from jsonb_to_recordset(?::jsonb) as v(id text, status text, email_id text, error text, sent_at timestamptz)` +
    ` where r.workspace_id = ? and r.id = v.id and (r.status <> 'sent' or v.status = 'sent')`
  );
}

/** A claim handed to the mail server: what it answered (sent), or the error. */
export type SendResult = { c: Claimed; sent?: EmailSendResult; acceptedAt?: Date; err?: unknown };
/**
 * The outcome part of a step statement: the claims, the e-mail and timeline rows as they stand now (with their
 * activity_created events), the email_sent events and the recipient rows; and the outcomes to count once written.
 */
export function outcomePartsSql(
  ctx: Ctx,
  sendOf: { accountId: string; bulkRef: string; trackOpens: boolean },
  results: SendResult[],
  params: unknown[],
): { ctes: [string, string][]; decided: BulkOutcome[] } {
  const at = new Date();
  const rows: { c: Claimed; o: Outcome }[] = [];
  const events: Record<string, unknown>[] = [];
  const decided: BulkOutcome[] = [];
  for (const { c, sent, acceptedAt, err } of results) {
    if (sent) {
      const pid = sent.messageId || c.messageId;
      rows.push({
        c,
        o: {
          status: 'sent',
          pid,
          result: { accepted: sent.accepted, rejected: sent.rejected },
          error: null,
          acceptedAt,
        },
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
          sourceRef: sendOf.bulkRef,
        }),
      );
      decided.push({ recipientId: c.msg.recipientId, status: 'sent', emailId: c.id, sentAt: acceptedAt! });
      continue;
    }
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
    const unknown = err instanceof DeliveryError && err.outcome === 'unknown';
    rows.push({ c, o: { status: unknown ? 'unknown' : 'failed', pid: null, result: null, error: message } });
    // A refusal for good fails the recipient; an unreachable server leaves it for the next attempt (the claim is
    // `failed`, so it goes again).
    const transient = err instanceof DeliveryError && err.outcome === 'not_sent' && !err.permanent;
    decided.push(
      transient
        ? { recipientId: c.msg.recipientId, status: 'retry' }
        : { recipientId: c.msg.recipientId, status: unknown ? 'unknown' : 'failed', emailId: c.id, error: message },
    );
  }
  if (!rows.length) return { ctes: [], decided };
  const claims = json(rows.map(({ c, o }) => ({ id: c.id, ...o, sent_at: o.acceptedAt ?? null })));
  params.push(at, claims, ctx.actor.workspaceId);
  const ctes: [string, string][] = [
    [
      // Sent is recorded even over a claim meanwhile marked unknown: it was sent.
      'claims',
      `update outbound_message o set status = v.status, provider_message_id = v.pid, result = v.result, error = v.error, updated_at = ?, sent_at = coalesce(v.sent_at, o.sent_at)
      from jsonb_to_recordset(?::jsonb) as v(id text, status text, pid text, result jsonb, error text, sent_at timestamptz) where o.workspace_id = ? and o.id = v.id and (v.status = 'sent' or o.status = 'queued')`,
    ],
    ...outcomeRowsSql(ctx, rows, sendOf, { at, onlyQueued: false }, params),
  ];
  if (events.length) ctes.push(['es', insertRowsSql('outbox_event', events, params)]);
  const recipients = decided.filter((o) => o.status !== 'retry');
  if (recipients.length) ctes.push(['rcp', recipientsSql(recipients, at, ctx.actor.workspaceId, params)]);
  return { ctes, decided };
}
