import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { htmlToText } from '../../platform/shared/html-text';
import { sendEmail, type EmailDeps } from '../email';
import { emit } from '../../platform/outbox/emit';
import { createdEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { entryHours } from '../projects';
import { SupportTicketMessage, SupportTimeEntry, type MessageVisibility, type SupportTicket } from './support.entity';
import { ensureSupportFlow } from './support-flow.service';
import { ticketRef } from './support.rules';
import type {
  ReplyType,
  TicketMessageView,
  TicketReplyView,
  TicketTimeEntryView,
  TicketTimeInput,
} from './support.schemas';
import { emitTicketChanges, getTicket, serializeTicket, setStatus, ticketEventPayload } from './tickets.service';

const MESSAGE_FIELDS = [
  '_id',
  'ticketId',
  'type',
  'visibility',
  'direction',
  'content',
  'authorUserId',
  'fromAddress',
  'emailId',
  'messageId',
  'createdAt',
] as const;
export const serializeMessage = (m: SupportTicketMessage): TicketMessageView => plainOf(m, MESSAGE_FIELDS);

/** The newest Message-ID of the ticket's conversation: the reply threads under it. */
async function lastMessageId(ctx: Ctx, ticketId: string): Promise<string | null> {
  const last = await ctx.em.findOne(
    SupportTicketMessage,
    { ticketId, messageId: { $ne: null } },
    { orderBy: { createdAt: 'desc', _id: 'desc' } },
  );
  return last?.messageId ?? null;
}

const looksLikeHtml = (s: string): boolean => /<[a-z][\s\S]*>/i.test(s);

/**
 * An agent's answer. Public replies to a ticket with a customer address go out by e-mail through
 * the messaging layer (the support mailbox, else the fallback sender), threaded under the last
 * message and carrying the ticket reference in the subject; internal notes are only stored.
 * The e-mail is sent before the message is stored (sending must not run inside a transaction);
 * the idempotency key is the message id, so a retried store never sends twice.
 */
export async function replyToTicket(
  ctx: Ctx,
  id: string,
  input: { content: string; type?: ReplyType; visibility?: MessageVisibility },
  deps: EmailDeps,
): Promise<TicketReplyView> {
  const ticket = await getTicket(ctx, id);
  const type = input.type ?? (input.visibility === 'internal' ? 'note' : 'reply');
  const visibility = input.visibility ?? (type === 'note' ? 'internal' : 'public');
  if (type === 'note' && visibility === 'public')
    throw validation('visibility: a note is internal; send type reply for a public answer', [
      { path: 'visibility', error: 'a note is internal' },
    ]);
  const text = looksLikeHtml(input.content) ? htmlToText(input.content) : input.content.trim();
  if (!text) throw validation('content: is required', [{ path: 'content', error: 'is required' }]);

  const messageRowId = newId();
  let email: { emailId: string; messageId: string; to: string } | null = null;
  if (visibility === 'public' && ticket.customerEmail) {
    const flow = await ensureSupportFlow(ctx);
    const replyTo = await lastMessageId(ctx, ticket._id);
    const sent = await sendEmail(
      ctx,
      {
        to: [ticket.customerEmail],
        subject: `Re: ${ticket.title} ${ticketRef(ticket.ticketNumber)}`,
        ...(looksLikeHtml(input.content) ? { html: input.content, text } : { text }),
        links: {
          ...(ticket.personRef ? { personId: ticket.personRef } : {}),
          ...(ticket.company ? { companyId: ticket.company } : {}),
        },
        ...(flow.mailboxAccountIds[0]
          ? { accountId: flow.mailboxAccountIds[0], accountAccess: 'workspace' as const }
          : {}),
        ...(replyTo ? { replyToMessageId: replyTo } : {}),
        idempotencyKey: `support-reply:${messageRowId}`,
        source: 'support',
        sourceRef: ticket._id,
      },
      deps,
    );
    email = { emailId: sent.emailId, messageId: sent.messageId, to: ticket.customerEmail };
  }

  return inTransaction(ctx, async () => {
    const now = new Date();
    const message = ctx.em.create(SupportTicketMessage, {
      _id: messageRowId,
      workspaceId: ctx.actor.workspaceId,
      createdAt: now,
      updatedAt: now,
      ticketId: ticket._id,
      type,
      visibility,
      direction: visibility === 'public' ? 'outbound' : 'internal',
      content: input.content,
      authorUserId: ctx.actor.userId,
      fromAddress: null,
      emailId: email?.emailId ?? null,
      messageId: email?.messageId ?? null,
    });
    const before = serializeTicket(ticket);
    ticket.lastActivityAt = now;
    ticket.updatedAt = now;
    if (visibility === 'public') {
      ticket.firstResponseAt ??= now;
      ticket.unreadCount = 0;
      if (ticket.status === 'open') setStatus(ticket, 'pending', now);
    }
    emit(ctx, {
      type: 'support_ticket_replied',
      entityType: 'support-ticket',
      entityId: ticket._id,
      payload: await ticketEventPayload(ctx, ticket, { message: serializeMessage(message) }),
    });
    if (before.status !== ticket.status)
      await emitTicketChanges(ctx, ticket, { status: { from: before.status, to: ticket.status } });
    return { ...serializeMessage(message), emailed: !!email, email, ticket: serializeTicket(ticket) };
  });
}

/** A customer's message (received e-mail) on a ticket: unread goes up, a waiting or finished ticket opens again. */
export async function addCustomerMessage(
  ctx: Ctx,
  ticket: SupportTicket,
  msg: { content: string; fromAddress: string | null; emailId: string; messageId: string | null; at: Date },
): Promise<SupportTicketMessage> {
  const message = createRecord(ctx, SupportTicketMessage, {
    ticketId: ticket._id,
    type: 'email',
    visibility: 'public',
    direction: 'inbound',
    content: msg.content,
    authorUserId: null,
    fromAddress: msg.fromAddress,
    emailId: msg.emailId,
    messageId: msg.messageId,
  } as SupportTicketMessage);
  const from = ticket.status;
  ticket.unreadCount += 1;
  ticket.lastActivityAt = msg.at;
  ticket.updatedAt = new Date();
  if (from !== 'open') setStatus(ticket, 'open', msg.at);
  emit(ctx, {
    type: 'support_ticket_replied',
    entityType: 'support-ticket',
    entityId: ticket._id,
    payload: await ticketEventPayload(ctx, ticket, { message: serializeMessage(message) }),
  });
  if (from !== ticket.status) await emitTicketChanges(ctx, ticket, { status: { from, to: ticket.status } });
  return message;
}

export async function listMessages(ctx: Ctx, id: string, query: PageRequest & { visibility?: MessageVisibility }) {
  await getTicket(ctx, id);
  const where: Record<string, unknown> = { ticketId: id };
  if (query.visibility) where.visibility = query.visibility;
  const { items, total } = await findPage(ctx.em, SupportTicketMessage, where, query, { createdAt: 'asc' });
  return { items: items.map(serializeMessage), total };
}

const TIME_FIELDS = [
  '_id',
  'ticketId',
  'hours',
  'description',
  'date',
  'billable',
  'userId',
  'createdAt',
  'updatedAt',
] as const;
const serializeTime = (e: SupportTimeEntry): TicketTimeEntryView => plainOf(e, TIME_FIELDS);

export async function createTicketTimeEntry(
  ctx: Ctx,
  id: string,
  input: TicketTimeInput,
): Promise<TicketTimeEntryView> {
  const ticket = await getTicket(ctx, id);
  const hours = entryHours(input.hours, input.minutes);
  return inTransaction(ctx, async () => {
    const entry = createRecord(ctx, SupportTimeEntry, {
      ticketId: ticket._id,
      hours,
      description: input.description ?? null,
      date: input.date ?? new Date(),
      billable: input.billable ?? true,
      userId: ctx.actor.userId,
    } as SupportTimeEntry);
    emit(ctx, {
      ...createdEvent('support_time_entry', { timeEntry: serializeTime(entry), ticketId: ticket._id }),
      entityId: entry._id,
    });
    return serializeTime(entry);
  });
}

export async function listTicketTimeEntries(ctx: Ctx, id: string, query: PageRequest) {
  await getTicket(ctx, id);
  const { items, total } = await findPage(ctx.em, SupportTimeEntry, { ticketId: id }, query, { date: 'desc' });
  const [sum] = await ctx.em.execute<{ total: number | null }[]>(
    `select sum(hours) as total from support_time_entry where workspace_id = ? and ticket_id = ?`,
    [ctx.actor.workspaceId, id],
  );
  return { items: items.map(serializeTime), total, totalHours: Math.round(Number(sum?.total ?? 0) * 100) / 100 };
}
