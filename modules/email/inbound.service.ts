import type { AddressObject, ParsedMail } from 'mailparser';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { Activity, serializeActivity } from '../timeline';
import type { Ctx } from '../../platform/context';
import { lookup } from '../crm-connect';
import { DomainError, notFound } from '../../platform/errors';
import { isId, newId } from '../../platform/ids';
import { htmlToText, truncate } from '../../platform/shared/html-text';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { emit } from '../../platform/outbox/emit';
import { createdEvent } from '../../platform/shared/changes';
import { Person } from '../people';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { User } from '../workspaces';
import { Email } from './email.entity';
import { EmailAccount } from './email-account.entity';
import { inboundSecretMatches } from './email-accounts.service';
import { emailEventPayload, normalizeMessageId, serializeEmail } from './email-records';
import type { InboundEmailResultView } from './email.views';

/**
 * Received mail (raw MIME from a provider webhook or the IMAP poller): parsed with mailparser,
 * stored once per Message-ID and account, threaded by In-Reply-To/References, linked to the sender's
 * person (else company, else lead), on their timeline. A reply to an e-mail we sent also emits
 * email_replied; a delivery status notification marks the e-mail it reports on as bounced.
 */

export const MAX_REFERENCES_LOOKUP = 50;

export type InboundResult = InboundEmailResultView;

/** The account of an inbound webhook, checked against its secret (401 for a wrong one, 404 for an unknown id). */
export async function authenticateInbound(
  rootEm: EntityManager,
  accountId: string,
  secret: string | undefined,
): Promise<Ctx> {
  if (!isId(accountId)) throw notFound('e-mail account');
  // Unbound on purpose: the account id names the workspace; the secret proves the caller may write to it.
  const account = await rootEm
    .fork({ clear: true, useContext: false })
    .findOne(EmailAccount, { _id: accountId }, { filters: false });
  if (!account) throw notFound('e-mail account');
  if (!inboundSecretMatches(account, secret))
    throw new DomainError('unauthenticated', 'missing or wrong x-webhook-secret header');
  return inboundCtx(rootEm, account.workspaceId);
}

/** Received mail is written as the workspace's first owner (events and timeline rows name a user). */
export async function inboundCtx(rootEm: EntityManager, workspaceId: string): Promise<Ctx> {
  const em = forkForWorkspace(rootEm, workspaceId);
  const owner = await em.findOne(User, { role: 'owner' }, { orderBy: { createdAt: 'asc' }, fields: ['_id'] });
  return { em, actor: { workspaceId, userId: owner?._id ?? workspaceId, role: 'owner', scopes: ['read', 'write'] } };
}

const addressList = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) =>
    o.value.map((v) => v.address?.toLowerCase()).filter((x): x is string => !!x),
  );

function isDsn(mail: ParsedMail): boolean {
  const ct = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  return (
    (ct?.value === 'multipart/report' && ct.params?.['report-type'] === 'delivery-status') ||
    mail.attachments.some((a) => a.contentType === 'message/delivery-status')
  );
}

/** The Message-ID the DSN reports on: from the returned headers (text/rfc822-headers or message/rfc822). */
function bouncedMessageId(mail: ParsedMail): string | null {
  for (const a of mail.attachments) {
    if (a.contentType !== 'text/rfc822-headers' && a.contentType !== 'message/rfc822') continue;
    const m = /^message-id:\s*(<[^>]+>)/im.exec(a.content.toString('utf8'));
    if (m) return m[1]!;
  }
  const inReplyTo = mail.inReplyTo?.trim();
  return inReplyTo ? normalizeMessageId(inReplyTo) : null;
}

/** Final-Recipient fields of the delivery-status part (mailparser may keep that part as an attachment or as text). */
function failedRecipients(mail: ParsedMail, raw: string): string[] {
  const status =
    mail.attachments.find((a) => a.contentType === 'message/delivery-status')?.content.toString('utf8') ?? raw;
  return [
    ...new Set(
      [...status.matchAll(/^final-recipient:\s*[^;\r\n]*;\s*<?([^\s<>]+)>?/gim)].map((m) => m[1]!.toLowerCase()),
    ),
  ];
}

async function recordBounce(ctx: Ctx, mail: ParsedMail, raw: string): Promise<InboundResult> {
  const recipients = failedRecipients(mail, raw);
  const messageId = bouncedMessageId(mail);
  const original = messageId ? await ctx.em.findOne(Email, { messageId, direction: 'outbound' }) : null;
  if (!original) return { kind: 'bounced', emailId: null, recipients };
  if (original.status !== 'bounced') {
    await inTransaction(ctx, async () => {
      original.status = 'bounced';
      original.error = truncate(`bounced${recipients.length ? `: ${recipients.join(', ')}` : ''}`, 2000);
      original.updatedAt = new Date();
      emit(ctx, {
        type: 'email_bounced',
        entityType: 'email',
        entityId: original._id,
        payload: { ...emailEventPayload(original), recipients },
      });
    });
  }
  return { kind: 'bounced', emailId: original._id, recipients };
}

async function resolveSender(
  ctx: Ctx,
  from: string | undefined,
): Promise<{ personId?: string; companyId?: string; leadId?: string }> {
  if (!from) return {};
  const { matches } = await lookup(ctx, { email: from });
  const person = matches.find((m) => m.entityType === 'person');
  if (person) {
    const p = await ctx.em.findOne(Person, { _id: person._id }, { fields: ['companyId'] });
    return { personId: person._id, ...(p?.companyId ? { companyId: p.companyId } : {}) };
  }
  const company = matches.find((m) => m.entityType === 'company');
  if (company) return { companyId: company._id };
  const lead = matches.find((m) => m.entityType === 'lead');
  return lead ? { leadId: lead._id } : {};
}

/** Stores one received message for `accountId` (null: the workspace's catch-all). Idempotent per Message-ID. */
export async function receiveRawEmail(
  ctx: Ctx,
  accountId: string | null,
  raw: Buffer | string,
): Promise<InboundResult> {
  if (!raw.length) throw new DomainError('validation', 'body: the raw MIME message is empty');
  // Loaded on use: mailparser is not needed for the worker to start polling (bench:worker-start).
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  if (isDsn(mail)) return recordBounce(ctx, mail, raw.toString());
  const from = mail.from?.value[0]?.address?.toLowerCase();
  if (!from && !mail.messageId)
    throw new DomainError('validation', 'body: not an e-mail message (no From and no Message-ID header)');
  const id = newId();
  const messageId = mail.messageId ? normalizeMessageId(mail.messageId) : `<${id}@inbound.invalid>`;
  const existing = await ctx.em.findOne(Email, { messageId, direction: 'inbound', accountId });
  if (existing) return { kind: 'received', email: serializeEmail(existing), duplicate: true, replyTo: null };

  const inReplyTo = mail.inReplyTo ? normalizeMessageId(mail.inReplyTo) : null;
  const references = (Array.isArray(mail.references) ? mail.references : mail.references ? [mail.references] : [])
    .map(normalizeMessageId)
    .slice(-MAX_REFERENCES_LOOKUP);
  const candidates = [...new Set([inReplyTo, ...references.slice().reverse()].filter((x): x is string => !!x))];
  const parents = candidates.length
    ? await ctx.em.find(Email, { messageId: { $in: candidates } }, { orderBy: { createdAt: 'asc' } })
    : [];
  // The message it answers directly, else the newest referenced one we know.
  const parent =
    parents.find((p) => p.messageId === inReplyTo) ??
    candidates.map((c) => parents.find((p) => p.messageId === c)).find(Boolean) ??
    null;
  const sender = await resolveSender(ctx, from);
  const links = {
    personId: sender.personId ?? parent?.personId ?? null,
    companyId: sender.companyId ?? parent?.companyId ?? null,
    dealId: parent?.dealId ?? null,
    leadId: sender.leadId ?? parent?.leadId ?? null,
  };
  const calendar = mail.attachments.find((a) => a.contentType === 'text/calendar');
  const html = typeof mail.html === 'string' ? mail.html : null;
  const text = mail.text?.replace(/\s+$/, '') ?? null;
  const subject = truncate((mail.subject ?? '').replace(/[\r\n]+/g, ' '), 998);
  const date = mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : new Date();
  const replyTo = parent && parent.direction === 'outbound' ? parent : null;

  const store = () =>
    inTransaction(ctx, async () => {
      const mainRecord = links.leadId
        ? ['lead', links.leadId]
        : links.dealId
          ? ['deal', links.dealId]
          : links.personId
            ? ['person', links.personId]
            : links.companyId
              ? ['company', links.companyId]
              : [null, null];
      const activity = createRecord(ctx, Activity, {
        type: 'email',
        system: false,
        summary: subject || '(no subject)',
        description: truncate(text?.trim() || htmlToText(html ?? ''), 20_000),
        ...links,
        entityType: mainRecord[0],
        entityId: mainRecord[1],
        noteRef: null,
        callRef: null,
        taskRef: null,
        date,
        metadata: {
          direction: 'inbound',
          emailId: id,
          from,
          to: addressList(mail.to),
          messageId,
          ...(accountId ? { accountId } : {}),
        },
        userId: null,
        ownerId: ctx.actor.userId,
      });
      const row = ctx.em.create(Email, {
        _id: id,
        workspaceId: ctx.actor.workspaceId,
        createdAt: new Date(),
        updatedAt: new Date(),
        accountId,
        direction: 'inbound',
        status: 'received',
        fromAddress: mail.from?.text?.slice(0, 500) || from || '',
        to: addressList(mail.to),
        cc: addressList(mail.cc),
        bcc: [],
        subject,
        html,
        text,
        messageId,
        inReplyTo,
        references,
        threadId: parent?.threadId ?? id,
        ...links,
        source: null,
        sourceRef: null,
        activityId: activity._id,
        trackOpens: false,
        openCount: 0,
        clickCount: 0,
        firstOpenedAt: null,
        error: null,
        userId: null,
        date,
        calendarInvite: calendar ? calendar.content.toString('utf8').slice(0, 200_000) : null,
      });
      emit(ctx, { ...createdEvent('activity', { activity: serializeActivity(activity) }), entityId: activity._id });
      emit(ctx, { type: 'email_received', entityType: 'email', entityId: id, payload: emailEventPayload(row) });
      if (replyTo) {
        emit(ctx, {
          type: 'email_replied',
          entityType: 'email',
          entityId: id,
          payload: {
            ...emailEventPayload(row),
            inReplyTo: {
              emailId: replyTo._id,
              ...(replyTo.source ? { source: replyTo.source } : {}),
              ...(replyTo.sourceRef ? { sourceRef: replyTo.sourceRef } : {}),
            },
          },
        });
      }
      return row;
    });
  let email: Email;
  try {
    email = await store();
  } catch (err) {
    // A concurrent delivery of the same message won (unique per mailbox and Message-ID).
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const winner = await forkForWorkspace(ctx.em, ctx.actor.workspaceId).findOne(Email, {
      messageId,
      direction: 'inbound',
      accountId,
    });
    if (!winner) throw err;
    return { kind: 'received', email: serializeEmail(winner), duplicate: true, replyTo: null };
  }
  return { kind: 'received', email: serializeEmail(email), duplicate: false, replyTo: replyTo?._id ?? null };
}
