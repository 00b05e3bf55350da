import type { FilterQuery } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { sendEmail, type EmailDeps } from './email.service';
import { dateWhere, findPage, likeAny, type DateFilterInput, type PageRequest } from '../../platform/shared/listing';
import { Email } from './email.entity';
import { visibleAccountIds } from './email-accounts.service';
import { serializeEmail } from './email-records';
import type { EmailThreadView, SentEmailView } from './email.views';

export interface ApiSendInput {
  accountId: string;
  to: string[];
  subject: string;
  html?: string;
  text?: string;
  cc?: string[];
  bcc?: string[];
  linkPersonId?: string;
  linkCompanyId?: string;
  linkDealId?: string;
  linkLeadId?: string;
  trackOpens?: boolean;
  replyToMessageId?: string;
  idempotencyKey?: string;
}

/** POST /emails: sends from a mailbox the caller can use and answers with the stored e-mail. */
export async function sendFromApi(ctx: Ctx, input: ApiSendInput, deps: EmailDeps): Promise<SentEmailView> {
  const sent = await sendEmail(
    ctx,
    {
      accountId: input.accountId,
      accountAccess: 'user',
      to: input.to,
      cc: input.cc,
      bcc: input.bcc,
      subject: input.subject,
      html: input.html,
      text: input.text,
      links: {
        personId: input.linkPersonId,
        companyId: input.linkCompanyId,
        dealId: input.linkDealId,
        leadId: input.linkLeadId,
      },
      replyToMessageId: input.replyToMessageId,
      trackOpens: input.trackOpens,
      idempotencyKey: input.idempotencyKey,
      source: 'api',
    },
    deps,
  );
  const email = await ctx.em.findOneOrFail(Email, { _id: sent.emailId }, { refresh: true });
  return { ...serializeEmail(email), accepted: sent.accepted, rejected: sent.rejected, replayed: sent.replayed };
}

/** E-mails of the caller's accounts; those sent by the fallback sender (no account) only to owners and admins. */
async function accessWhere(ctx: Ctx): Promise<Record<string, unknown>> {
  const ids = await visibleAccountIds(ctx);
  const admin = ctx.actor.role === 'owner' || ctx.actor.role === 'admin';
  return { $or: [{ accountId: { $in: ids } }, ...(admin ? [{ accountId: null }] : [])] };
}

export interface ListEmailsQuery extends PageRequest, DateFilterInput {
  view: 'summary' | 'full';
  accountId?: string;
  folder?: 'inbox' | 'sent';
  direction?: 'inbound' | 'outbound';
  status?: string;
  personId?: string;
  companyId?: string;
  dealId?: string;
  leadId?: string;
  threadId?: string;
  q?: string;
}

export async function listEmails(ctx: Ctx, query: ListEmailsQuery) {
  const where: Record<string, unknown>[] = [await accessWhere(ctx), dateWhere(query)];
  const direction =
    query.direction ?? (query.folder === 'inbox' ? 'inbound' : query.folder === 'sent' ? 'outbound' : undefined);
  if (query.folder && query.direction && direction !== (query.folder === 'inbox' ? 'inbound' : 'outbound'))
    return { items: [], total: 0 };
  const exact = {
    accountId: query.accountId,
    direction,
    status: query.status,
    personId: query.personId,
    companyId: query.companyId,
    dealId: query.dealId,
    leadId: query.leadId,
    threadId: query.threadId,
  };
  for (const [key, value] of Object.entries(exact)) if (value !== undefined) where.push({ [key]: value });
  if (query.q) where.push({ $or: likeAny(query.q, ['subject', 'fromAddress', 'text']) });
  const { items, total } = await findPage<Email>(ctx.em, Email, { $and: where } as FilterQuery<Email>, query, {
    date: 'desc',
  });
  return { items: items.map((e) => serializeEmail(e, query.view)), total };
}

export async function getEmail(ctx: Ctx, id: string): Promise<Email> {
  const email = await ctx.em.findOne(Email, { $and: [{ _id: id }, await accessWhere(ctx)] });
  if (!email) throw notFound('e-mail');
  return email;
}

/**
 * One thread in the order we stored its messages (sent or received); a thread with no e-mail the caller may see is 404.
 */
export async function getThread(ctx: Ctx, threadId: string): Promise<EmailThreadView> {
  const emails = await ctx.em.find(
    Email,
    { $and: [{ threadId }, await accessWhere(ctx)] },
    { orderBy: { createdAt: 'asc', _id: 'asc' }, limit: 500 },
  );
  if (!emails.length) throw notFound('e-mail thread');
  return { threadId, subject: emails[0]!.subject, count: emails.length, emails: emails.map((e) => serializeEmail(e)) };
}
