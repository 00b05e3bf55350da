import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { Email, inboundCtx } from '../email';
import { parseMailbox } from '../messaging';
import { htmlToText } from '../../platform/shared/html-text';
import type { Subscriber, SubscriberDeps } from '../../platform/outbox/subscriber';
import { inTransaction } from '../../platform/shared/tx';
import { SupportFlow, SupportTicket, SupportTicketMessage } from './support.entity';
import { ticketNumberInSubject } from './support.rules';
import { addCustomerMessage } from './ticket-replies.service';
import { createTicket } from './tickets.service';

/** Recorded in outbox_event.delivered_to: never rename. */
export const SUPPORT_INBOUND_SUBSCRIBER = 'support-inbound';

const senderAddress = (from: string): string | null => {
  const parsed = parseMailbox(from);
  return 'mailbox' in parsed ? parsed.mailbox.address.toLowerCase() : null;
};

/**
 * The ticket a received e-mail continues: one whose message it answers (In-Reply-To, then
 * References), else the ticket named in the subject (`[#123]`) when the sender is that ticket's customer.
 */
async function continuedTicket(ctx: Ctx, email: Email, from: string | null): Promise<SupportTicket | null> {
  const ids = [...new Set([email.inReplyTo, ...[...email.references].reverse()].filter((x): x is string => !!x))];
  if (ids.length) {
    const messages = await ctx.em.find(
      SupportTicketMessage,
      { messageId: { $in: ids } },
      { fields: ['ticketId', 'messageId'] },
    );
    const hit = ids.map((id) => messages.find((m) => m.messageId === id)).find(Boolean);
    if (hit) return ctx.em.findOne(SupportTicket, { _id: hit.ticketId });
  }
  const number = ticketNumberInSubject(email.subject);
  if (number === null || !from) return null;
  const ticket = await ctx.em.findOne(SupportTicket, { ticketNumber: number });
  return ticket && ticket.customerEmail === from ? ticket : null;
}

const subjectTitle = (subject: string): string =>
  subject
    .replace(/^\s*((re|aw|sv|fwd?|vs)\s*:\s*)+/i, '')
    .trim()
    .slice(0, 300) || '(no subject)';

/**
 * A received e-mail continues its ticket, or opens one when it reached a support mailbox.
 * Idempotent: one ticket message per e-mail (unique index); a repeated delivery changes nothing.
 */
export async function ingestSupportEmail(
  ctx: Ctx,
  emailId: string,
): Promise<{ ticketId: string; created: boolean } | null> {
  const email = await ctx.em.findOne(Email, { _id: emailId, direction: 'inbound' });
  if (!email) return null;
  const done = await ctx.em.findOne(SupportTicketMessage, { emailId });
  if (done) return { ticketId: done.ticketId, created: false };
  const from = senderAddress(email.fromAddress);
  const content = email.text?.trim() || htmlToText(email.html ?? '') || '(empty message)';
  const msg = {
    content,
    fromAddress: email.fromAddress || null,
    emailId,
    messageId: email.messageId ?? null,
    at: email.date,
  };
  const existing = await continuedTicket(ctx, email, from);
  try {
    if (existing) {
      await inTransaction(ctx, () => addCustomerMessage(ctx, existing, msg));
      return { ticketId: existing._id, created: false };
    }
    const flow = await ctx.em.findOne(SupportFlow, {});
    if (!flow || !email.accountId || !flow.mailboxAccountIds.includes(email.accountId)) return null;
    return await inTransaction(ctx, async () => {
      const { ticket } = await createTicket(
        ctx,
        {
          title: subjectTitle(email.subject),
          description: content.slice(0, 50_000),
          personRef: email.personId,
          company: email.companyId,
          customerEmail: from,
          customerName: parseName(email.fromAddress),
        },
        { preview: false, source: 'email' },
      );
      await addCustomerMessage(ctx, ticket, msg);
      return { ticketId: ticket._id, created: true };
    });
  } catch (err) {
    // A concurrent delivery of the same event stored it first.
    if (err instanceof UniqueConstraintViolationException) return null;
    throw err;
  }
}

function parseName(from: string): string | null {
  const parsed = parseMailbox(from);
  return 'mailbox' in parsed ? (parsed.mailbox.name ?? null) : null;
}

/** Turns received e-mails into ticket messages (worker side, after the e-mail is stored). */
export function supportInboundSubscriber(deps: SubscriberDeps): Subscriber {
  return {
    name: SUPPORT_INBOUND_SUBSCRIBER,
    handles: (event) => event.type === 'email_received',
    async handle(event) {
      const ctx = await inboundCtx(deps.orm.em, event.workspaceId);
      await ingestSupportEmail(ctx, event.entityId);
    },
  };
}
