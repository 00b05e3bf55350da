import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { formatMailbox, type ClaimRow, type Mailbox, type MessageLinks } from '../messaging';
import { leanQuery, type FullRow } from '../../platform/orm/lean';
import { plainOf } from '../../platform/shared/views';
import type { EmailSummaryView, EmailView } from './email.views';
import { Email, type EmailStatus } from './email.entity';

/** Rows of the `email` table written by the send path and read by the API. */

export interface ThreadPlacement {
  threadId: string | null;
  inReplyTo: string;
  references: string[];
}

/** References kept per message: enough for any client's threading, bounded so headers stay small. */
const MAX_REFERENCES = 50;
const MESSAGE_ID_RE = /^<[^<>\s]{1,900}@[^<>\s]{1,200}>$/;

export const normalizeMessageId = (raw: string): string => {
  const v = raw.trim();
  return v.startsWith('<') ? v : `<${v}>`;
};

/**
 * Where a reply goes: `ref` is an e-mail `_id` of the workspace or a Message-ID header (with or
 * without brackets). A known message gives its thread; an unknown Message-ID still sets the headers.
 */
export async function threadOfReply(ctx: Ctx, ref: string): Promise<ThreadPlacement> {
  const value = ref.trim();
  let parent: Email | null = null;
  if (isId(value)) parent = await ctx.em.findOne(Email, { _id: value });
  if (!parent && value)
    parent = await ctx.em.findOne(Email, { messageId: normalizeMessageId(value) }, { orderBy: { createdAt: 'asc' } });
  if (parent?.messageId) {
    return {
      threadId: parent.threadId,
      inReplyTo: parent.messageId,
      references: [...parent.references, parent.messageId].slice(-MAX_REFERENCES),
    };
  }
  const header = normalizeMessageId(value);
  if (!MESSAGE_ID_RE.test(header))
    throw validation(
      `replyToMessageId: "${value.slice(0, 100)}" is neither an e-mail id of this workspace nor a Message-ID`,
    );
  return { threadId: null, inReplyTo: header, references: [header] };
}

export interface OutboundEmailDraft {
  id: string;
  activityId: string;
  at: Date;
  accountId: string | null;
  mail: {
    from: Mailbox;
    to: Mailbox[];
    cc: Mailbox[];
    bcc: Mailbox[];
    subject: string;
    html?: string;
    text?: string;
    source: string;
  };
  links: MessageLinks;
  messageId: string;
  thread: ThreadPlacement | null;
  sourceRef: string | null;
  trackOpens: boolean;
}

/**
 * The `email` row of a claim: a single send writes it in the claim's statement (it exists exactly when the claim
 * does); a bulk send writes it with the outcome (email/bulk-send.ts).
 */
export function outboundEmailRow(ctx: Ctx, d: OutboundEmailDraft): ClaimRow {
  const addresses = (list: Mailbox[]) => list.map((m) => m.address);
  const row = {
    _id: d.id,
    workspaceId: ctx.actor.workspaceId,
    createdAt: d.at,
    updatedAt: d.at,
    accountId: d.accountId,
    direction: 'outbound',
    status: 'queued',
    fromAddress: formatMailbox(d.mail.from),
    to: addresses(d.mail.to),
    cc: addresses(d.mail.cc),
    bcc: addresses(d.mail.bcc),
    subject: d.mail.subject,
    html: d.mail.html ?? null,
    text: d.mail.text ?? null,
    messageId: d.messageId,
    inReplyTo: d.thread?.inReplyTo ?? null,
    references: d.thread?.references ?? [],
    threadId: d.thread?.threadId ?? d.id,
    personId: d.links.personId ?? null,
    companyId: d.links.companyId ?? null,
    dealId: d.links.dealId ?? null,
    leadId: d.links.leadId ?? null,
    source: d.mail.source,
    sourceRef: d.sourceRef,
    activityId: d.activityId,
    trackOpens: d.trackOpens,
    openCount: 0,
    clickCount: 0,
    firstOpenedAt: null,
    error: null,
    userId: ctx.actor.userId,
    date: d.at,
    calendarInvite: null,
  } satisfies FullRow<Email>;
  return { table: 'email', row };
}

export async function setEmailStatus(ctx: Ctx, id: string, status: EmailStatus, error: string | null): Promise<void> {
  await ctx.em.nativeUpdate(
    Email,
    { _id: id },
    { status, error: error?.slice(0, 2000) ?? null, updatedAt: new Date() },
  );
}

/** The e-mail row as its sent event tells it (read only: the outcome's one statement writes it). */
export async function readSentEmailRow(ctx: Ctx, id: string): Promise<SentEmailRow | null> {
  const rows = await leanQuery<SentEmailRow>(
    ctx.em,
    `select id as "_id", subject, from_address as "fromAddress", "to", thread_id as "threadId", message_id as` +
      ` "messageId", person_id as "personId", company_id as "companyId", lead_id as "leadId", deal_id as "dealId",` +
      ` source, source_ref as "sourceRef" from email where workspace_id = $1 and id = $2`,
    [ctx.actor.workspaceId, id],
  );
  return rows[0] ?? null;
}

/** What an e-mail event tells about its e-mail. */
export type SentEmailRow = Pick<
  Email,
  | '_id'
  | 'subject'
  | 'fromAddress'
  | 'to'
  | 'threadId'
  | 'messageId'
  | 'personId'
  | 'companyId'
  | 'leadId'
  | 'dealId'
  | 'source'
  | 'sourceRef'
>;

export function emailEventPayload(e: SentEmailRow) {
  const links: Record<string, string> = {};
  if (e.personId) links.personId = e.personId;
  if (e.companyId) links.companyId = e.companyId;
  if (e.leadId) links.leadId = e.leadId;
  if (e.dealId) links.dealId = e.dealId;
  return {
    email: {
      _id: e._id,
      subject: e.subject,
      from: e.fromAddress,
      to: e.to,
      threadId: e.threadId,
      messageId: e.messageId,
    },
    links,
    ...(e.source ? { source: e.source } : {}),
    ...(e.sourceRef ? { sourceRef: e.sourceRef } : {}),
  };
}

const FIELDS = [
  '_id',
  'accountId',
  'direction',
  'status',
  'to',
  'cc',
  'bcc',
  'subject',
  'html',
  'text',
  'messageId',
  'inReplyTo',
  'references',
  'threadId',
  'personId',
  'companyId',
  'dealId',
  'leadId',
  'source',
  'sourceRef',
  'activityId',
  'trackOpens',
  'openCount',
  'clickCount',
  'firstOpenedAt',
  'error',
  'userId',
  'date',
  'createdAt',
  'updatedAt',
] as const;
const SUMMARY = ['_id', 'accountId', 'direction', 'status', 'subject', 'to', 'threadId', 'date'] as const;

const folderOf = (e: Email) => (e.direction === 'inbound' ? 'inbox' : 'sent');

export function serializeEmail(e: Email, view?: 'full'): EmailView;
export function serializeEmail(e: Email, view: 'summary'): EmailSummaryView;
export function serializeEmail(e: Email, view: 'full' | 'summary'): EmailView | EmailSummaryView;
export function serializeEmail(e: Email, view: 'full' | 'summary' = 'full'): EmailView | EmailSummaryView {
  if (view === 'summary') return { ...plainOf(e, SUMMARY), from: e.fromAddress, folder: folderOf(e) };
  return { ...plainOf(e, FIELDS), from: e.fromAddress, folder: folderOf(e), hasCalendarInvite: !!e.calendarInvite };
}
