import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import {
  EMAIL_NOT_CONFIGURED,
  MESSAGE_SOURCES,
  checkIdempotencyKey,
  checkLinks,
  claimOutbound,
  findSent,
  formatMailbox,
  parseMailbox,
  recordFailure,
  recordSent,
  type AlsoStatement,
  type EmailTransport,
  type Mailbox,
  type MailboxCaps,
  type MessageLinks,
  type MessageSource,
  type OutboundRow,
} from '../messaging';
import { htmlToText, truncate } from '../../platform/shared/html-text';
import type { AccountTransports } from './account-transports';
import { addTracking, type TrackingConfig } from './tracking';
import { accountForSend } from './email-accounts.service';
import {
  emailEventPayload,
  readSentEmailRow,
  outboundEmailRow,
  setEmailStatus,
  threadOfReply,
  type ThreadPlacement,
} from './email-records';

/** Subject line limit of RFC 5322 (998 characters per header line). */
export const MAX_SUBJECT = 998;
/** html + text together, UTF-8 bytes. */
export const MAX_EMAIL_BODY_BYTES = 1024 * 1024;
/** to + cc + bcc. */
export const MAX_EMAIL_RECIPIENTS = 50;
/** Timeline description is the readable body, cut to this length. */
export const MAX_TIMELINE_TEXT = 20_000;

export interface SendEmailInput {
  to: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  html?: string;
  text?: string;
  /** `address` or `Name <address>`; default MAIL_FROM (ignored when accountId is given: the mailbox is the sender). */
  from?: string;
  replyTo?: string;
  links: MessageLinks;
  /** Same key, same workspace: handed to the SMTP server at most once (e.g. `<executionId>:<nodeId>`). */
  idempotencyKey?: string;
  source?: MessageSource;
  /** Send through this connected mailbox (email_account) instead of the fallback sender. */
  accountId?: string;
  /** `user`: the caller must have access to the account (API); `workspace`: any account of the workspace (runs). */
  accountAccess?: 'user' | 'workspace';
  /** The e-mail this one answers: an e-mail `_id` of the workspace or a Message-ID header. */
  replyToMessageId?: string;
  /** Enrollment id (sequences) or execution id (automations), carried into the events. */
  sourceRef?: string;
  trackOpens?: boolean;
  /** Route links through the click redirect (default: as trackOpens). */
  trackClicks?: boolean;
  /** iCalendar part (RSVP replies). */
  calendar?: { method: string; content: string };
  /** Internal callers only: every record in `links` was read from this workspace for this send (no 400 check). */
  linksRead?: boolean;
}

export interface SentEmail {
  /** The e-mail record (`email` table); the same id as its outbound claim. */
  emailId: string;
  outboundMessageId: string;
  activityId: string;
  messageId: string;
  accepted: string[];
  rejected: string[];
  status: 'sent';
  /** True when an earlier call with the same idempotencyKey had sent it; nothing was sent now. */
  replayed: boolean;
}

export interface EmailDeps {
  /** The fallback sender (SMTP_* / MAIL_FROM), used when no accountId is given. */
  transport: EmailTransport;
  /** Transports of connected mailboxes; required for sends with accountId. */
  accounts?: AccountTransports;
  /** Open pixel and click redirect for sends with trackOpens. */
  tracking?: TrackingConfig | null;
  /** How long a `queued` claim counts as in progress (default 5 minutes). */
  staleClaimMs?: number;
}

export interface ValidEmail {
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo?: Mailbox;
  subject: string;
  html?: string;
  text?: string;
  source: MessageSource;
  idempotencyKey: string | null;
}

function mailboxes(field: string, list: unknown, required: boolean): Mailbox[] {
  if (list === undefined && !required) return [];
  if (!Array.isArray(list)) throw validation(`${field}: must be an array of e-mail addresses`);
  if (required && !list.length) throw validation(`${field}: at least one recipient is required`);
  const seen = new Set<string>();
  const out: Mailbox[] = [];
  list.forEach((raw, i) => {
    if (typeof raw !== 'string') throw validation(`${field}.${i}: must be a string`);
    const parsed = parseMailbox(raw);
    if ('error' in parsed) throw validation(`${field}.${i}: "${truncate(raw, 100)}" ${parsed.error}`);
    const key = parsed.mailbox.address.toLowerCase();
    if (!seen.has(key)) out.push(parsed.mailbox);
    seen.add(key);
  });
  return out;
}

function single(field: string, raw: string | undefined): Mailbox | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseMailbox(raw);
  if ('error' in parsed) throw validation(`${field}: ${parsed.error}`);
  return parsed.mailbox;
}

/** Checks and normalises a send request (pure); `defaultFrom` is MAIL_FROM. */
export function validateEmail(input: SendEmailInput, defaultFrom: string | undefined): ValidEmail {
  const to = mailboxes('to', input.to, true);
  const cc = mailboxes('cc', input.cc, false);
  const bcc = mailboxes('bcc', input.bcc, false);
  if (to.length + cc.length + bcc.length > MAX_EMAIL_RECIPIENTS)
    throw validation(`to: at most ${MAX_EMAIL_RECIPIENTS} recipients (to, cc and bcc together)`);
  if (typeof input.subject !== 'string' || !input.subject.trim()) throw validation('subject: is required');
  if (/[\r\n]/.test(input.subject)) throw validation('subject: must not contain line breaks');
  const subject = input.subject.trim();
  if (subject.length > MAX_SUBJECT) throw validation(`subject: must be at most ${MAX_SUBJECT} characters`);
  const html = input.html?.length ? input.html : undefined;
  const text = input.text?.length ? input.text : undefined;
  if (!html?.trim() && !text?.trim()) throw validation('html: html or text is required');
  const size = Buffer.byteLength(html ?? '') + Buffer.byteLength(text ?? '');
  if (size > MAX_EMAIL_BODY_BYTES)
    throw validation(`html: the body (html and text together) must be at most ${MAX_EMAIL_BODY_BYTES} bytes`);
  const source = input.source ?? 'api';
  if (!MESSAGE_SOURCES.includes(source)) throw validation(`source: must be one of ${MESSAGE_SOURCES.join(', ')}`);
  const from = single('from', input.from ?? defaultFrom);
  if (!from)
    throw new DomainError(
      'not_configured',
      `${EMAIL_NOT_CONFIGURED} (no sender: MAIL_FROM is not set and the message names none)`,
    );
  return {
    from,
    to,
    cc,
    bcc,
    replyTo: single('replyTo', input.replyTo),
    subject,
    html,
    text,
    source,
    idempotencyKey: checkIdempotencyKey(input.idempotencyKey),
  };
}

function replayOf(row: OutboundRow): SentEmail {
  const result = row.result ?? {};
  return {
    emailId: row._id,
    outboundMessageId: row._id,
    activityId: row.activityId,
    messageId: row.providerMessageId ?? '',
    status: 'sent',
    replayed: true,
    accepted: (result.accepted as string[] | undefined) ?? [],
    rejected: (result.rejected as string[] | undefined) ?? [],
  };
}

/** Message-ID header from the outbound id: the same on every attempt of one message. */
const messageIdFor = (outboundId: string, from: Mailbox): string =>
  `<${outboundId}@${from.address.slice(from.address.lastIndexOf('@') + 1)}>`;

/** Where the sender, transport and thread of a send come from. */
async function prepare(
  ctx: Ctx,
  input: SendEmailInput,
  deps: EmailDeps,
): Promise<{
  transport: EmailTransport;
  defaultFrom?: string;
  accountId: string | null;
  caps: MailboxCaps | null;
  thread: ThreadPlacement | null;
}> {
  let transport = deps.transport;
  let defaultFrom = deps.transport.defaultFrom;
  let accountId: string | null = null;
  let caps: MailboxCaps | null = null;
  if (input.accountId !== undefined) {
    const account = await accountForSend(ctx, input.accountId, { asUser: input.accountAccess === 'user' });
    if (!deps.accounts)
      throw new DomainError(
        'not_configured',
        'sending from connected e-mail accounts is not available in this process',
      );
    const resolved = deps.accounts.forAccount(account);
    transport = resolved.transport;
    defaultFrom = formatMailbox(resolved.from);
    accountId = account._id;
    caps = { accountId, maxPerHour: account.maxPerHour ?? null, maxPerDay: account.maxPerDay ?? null };
    input = { ...input, from: undefined };
  } else {
    transport.assertConfigured?.();
  }
  const thread = input.replyToMessageId !== undefined ? await threadOfReply(ctx, input.replyToMessageId) : null;
  return { transport, defaultFrom, accountId, caps, thread };
}

/**
 * Sends one e-mail: validates, records it (an `email` row and a timeline activity of type `email`
 * on the linked records) and hands it to the transport (a connected mailbox, or the fallback
 * sender), at most once per idempotencyKey. Must not run inside a transaction.
 */
export async function sendEmail(ctx: Ctx, input: SendEmailInput, deps: EmailDeps): Promise<SentEmail> {
  if ((input.trackOpens || input.trackClicks) && !deps.tracking)
    throw new DomainError(
      'not_configured',
      'open tracking needs CRM_SECRETS_KEY (the tracking links are signed with a key derived from it) and PUBLIC_BASE_URL',
    );
  const prepared = await prepare(ctx, input, deps);
  const mail = validateEmail(prepared.accountId ? { ...input, from: undefined } : input, prepared.defaultFrom);
  const links = input.links ?? {};
  // Links the caller has just read from this workspace need no check; without the check there is nothing to do
  // before it either: a key already sent is replayed by the claim.
  if (!input.linksRead) {
    const done = await findSent(ctx, 'email', mail.idempotencyKey);
    if (done) return replayOf(done);
    await checkLinks(ctx, links);
  }
  const addresses = (list: Mailbox[]) => list.map((m) => m.address);
  const metadata = {
    from: formatMailbox(mail.from),
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    bcc: addresses(mail.bcc),
    source: mail.source,
    messageId: null,
    ...(prepared.accountId ? { accountId: prepared.accountId } : {}),
  };
  const messageIdOf = (id: string) => messageIdFor(id, mail.from);
  const claim = await claimOutbound(
    ctx,
    {
      channel: 'email',
      idempotencyKey: mail.idempotencyKey,
      source: mail.source,
      recipients: [...metadata.to, ...metadata.cc, ...metadata.bcc],
      links,
      activity: {
        summary: mail.subject,
        description: truncate(mail.text?.trim() || htmlToText(mail.html ?? ''), MAX_TIMELINE_TEXT),
        metadata,
      },
      // The mailbox's maxPerHour / maxPerDay (send-quota.ts): taken with the claim, 429 rate_limited when full.
      ...(prepared.caps ? { quota: prepared.caps } : {}),
      onClaim: (claimed) => [
        outboundEmailRow(ctx, {
          id: claimed.outboundId,
          activityId: claimed.activityId,
          at: claimed.at,
          accountId: prepared.accountId,
          mail,
          links,
          messageId: messageIdOf(claimed.outboundId),
          thread: prepared.thread,
          sourceRef: input.sourceRef ?? null,
          trackOpens: input.trackOpens ?? false,
        }),
      ],
    },
    deps.staleClaimMs,
  );
  const { row } = claim;
  if (claim.kind === 'sent') return replayOf(row);
  // A fresh claim wrote its e-mail row as queued; a failed one claimed again goes back to queued.
  if (row.attempts > 1) await setEmailStatus(ctx, row._id, 'queued', null);
  let sent;
  try {
    sent = await prepared.transport.send({
      from: mail.from,
      to: mail.to,
      cc: mail.cc,
      bcc: mail.bcc,
      replyTo: mail.replyTo,
      subject: mail.subject,
      messageId: messageIdOf(row._id),
      text: mail.text,
      html:
        mail.html && (input.trackOpens || input.trackClicks) && deps.tracking
          ? addTracking(mail.html, deps.tracking, ctx.actor.workspaceId, row._id, {
              opens: input.trackOpens ?? false,
              clicks: input.trackClicks ?? input.trackOpens ?? false,
            })
          : mail.html,
      ...(input.calendar ? { calendar: input.calendar } : {}),
      ...(prepared.thread ? { inReplyTo: prepared.thread.inReplyTo, references: prepared.thread.references } : {}),
    });
  } catch (err) {
    const toThrow = await recordFailure(ctx, row, err, 'email');
    const outcome =
      toThrow instanceof DomainError &&
      toThrow.code === 'upstream_failed' &&
      (toThrow.details as { outcome?: string } | undefined)?.outcome === 'unknown'
        ? 'unknown'
        : 'failed';
    await setEmailStatus(ctx, row._id, outcome, err instanceof Error ? err.message : String(err));
    throw toThrow;
  }
  const sentAt = new Date();
  const emailSent: AlsoStatement = {
    sql:
      "update email set status = 'sent', error = null, message_id = coalesce(nullif(?, ''), message_id), date = ?," +
      ' updated_at = ? where workspace_id = ? and id = ?',
    params: [sent.messageId ?? '', sentAt, sentAt, ctx.actor.workspaceId, row._id],
  };
  // A fresh claim wrote the e-mail row from this very message: the event is built from it. A failed claim sent again
  // reads its row (written by an earlier attempt) first; the writes stay one statement either way.
  const stored = row.attempts === 1 ? null : await readSentEmailRow(ctx, row._id);
  const email = stored && { ...stored, messageId: sent.messageId || stored.messageId };
  await recordSent(
    ctx,
    row,
    { providerMessageId: sent.messageId, result: { accepted: sent.accepted, rejected: sent.rejected } },
    {
      type: 'email_sent',
      entityType: 'email',
      payload: email
        ? emailEventPayload(email)
        : {
            email: {
              _id: row._id,
              subject: mail.subject,
              from: metadata.from,
              to: metadata.to,
              threadId: prepared.thread?.threadId ?? row._id,
              messageId: sent.messageId || messageIdOf(row._id),
            },
            links: Object.fromEntries(Object.entries(links).filter(([, v]) => v)),
            ...(mail.source ? { source: mail.source } : {}),
            ...(input.sourceRef ? { sourceRef: input.sourceRef } : {}),
          },
    },
    [emailSent],
  );
  return {
    emailId: row._id,
    outboundMessageId: row._id,
    activityId: row.activityId,
    messageId: sent.messageId,
    accepted: sent.accepted,
    rejected: sent.rejected,
    status: 'sent',
    replayed: false,
  };
}
