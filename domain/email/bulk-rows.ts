/**
 * The rows a bulk send's recipient leaves behind with its outcome (email/bulk-send.ts): the e-mail
 * row and the timeline row as they stand then, written once (not written `queued` and updated).
 */
import type { Ctx } from '../context';
import { formatMailbox } from '../messaging/addresses';
import { MAX_TIMELINE_TEXT, type ValidEmail } from '../messaging/email.service';
import { htmlToText, truncate } from '../messaging/html-text';
import { activityCreatedRow, claimActivityRow } from '../messaging/outbound.service';
import { insertRowsSql } from '../orm/lean';
import { outboundEmailRow } from './email-records';

/** A recipient's decided outcome, as its row records it. */
export type DecidedRecipient =
  | { recipientId: string; status: 'sent'; emailId: string; sentAt: Date }
  | { recipientId: string; status: 'failed' | 'unknown'; emailId: string | null; error: string };

const json = (v: unknown): string => JSON.stringify(v);

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
