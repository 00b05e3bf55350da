/**
 * The one adapter between sequences and the messaging layer (re-pointed when mailboxes, templates
 * and tracking land). Every send carries the key `seq:<enrollmentId>:<nodeId>[:<n>]` and source
 * `sequence`, so a retried step never hands a message to the provider twice.
 */
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { sendEmail, type MessagingDeps } from '../email';
import { sendSms, type MessageLinks } from '../messaging';

export interface SequenceSendDeps {
  messaging: MessagingDeps;
  staleClaimMs?: number;
}

export const sendKey = (enrollmentId: string, nodeId: string, n = 0): string =>
  `seq:${enrollmentId}:${nodeId}${n ? `:${n}` : ''}`;

export type SendOutcome =
  | { outcome: 'sent'; outboundMessageId: string; replayed: boolean; to: string[] }
  /** A previous attempt stopped after the hand-over: it may have been delivered; never re-sent. */
  | { outcome: 'unknown'; outboundMessageId: string | null; to: string[] };

function unknownOutcome(err: unknown, to: string[]): SendOutcome | null {
  if (!(err instanceof DomainError)) return null;
  const d = (err.details ?? {}) as { status?: string; outcome?: string; outboundMessageId?: string };
  if (
    (err.code === 'invalid_state' && d.status === 'unknown') ||
    (err.code === 'upstream_failed' && d.outcome === 'unknown')
  ) {
    return { outcome: 'unknown', outboundMessageId: d.outboundMessageId ?? null, to };
  }
  return null;
}

/** A send's outcome: `sent`, or `unknown` when a previous attempt stopped after the hand-over; other errors throw. */
async function outcomeOf(
  to: string[],
  send: () => Promise<{ outboundMessageId: string; replayed: boolean }>,
): Promise<SendOutcome> {
  try {
    const r = await send();
    return { outcome: 'sent', outboundMessageId: r.outboundMessageId, replayed: r.replayed, to };
  } catch (err) {
    const u = unknownOutcome(err, to);
    if (u) return u;
    throw err;
  }
}

export interface SequenceEmail {
  to: string[];
  subject: string;
  html?: string;
  text?: string;
  from?: string;
  replyTo?: string;
  /** Send from this connected mailbox (the step's senderAccountId) instead of the fallback sender. */
  accountId?: string;
  trackOpens?: boolean;
  trackClicks?: boolean;
  links: MessageLinks;
  /** Every record in `links` was just read from the workspace (the step's context): no separate check. */
  linksRead?: boolean;
  key: string;
  sourceRef?: string;
}

export async function sendSequenceEmail(ctx: Ctx, deps: SequenceSendDeps, msg: SequenceEmail): Promise<SendOutcome> {
  return outcomeOf(msg.to, () =>
    sendEmail(
      ctx,
      {
        to: msg.to,
        subject: msg.subject,
        html: msg.html,
        text: msg.text,
        from: msg.from,
        replyTo: msg.replyTo,
        links: msg.links,
        ...(msg.linksRead ? { linksRead: true } : {}),
        idempotencyKey: msg.key,
        source: 'sequence',
        ...(msg.sourceRef ? { sourceRef: msg.sourceRef } : {}),
        ...(msg.accountId ? { accountId: msg.accountId, accountAccess: 'workspace' as const } : {}),
        trackOpens: msg.trackOpens,
        trackClicks: msg.trackClicks,
      },
      {
        transport: deps.messaging.transport,
        accounts: deps.messaging.accounts,
        tracking: deps.messaging.tracking,
        staleClaimMs: deps.staleClaimMs,
      },
    ),
  );
}

export async function sendSequenceSms(
  ctx: Ctx,
  deps: SequenceSendDeps,
  msg: { to: string; message: string; from?: string; links: MessageLinks; key: string },
): Promise<SendOutcome> {
  return outcomeOf([msg.to], () =>
    sendSms(
      ctx,
      {
        to: msg.to,
        message: msg.message,
        from: msg.from,
        links: msg.links,
        idempotencyKey: msg.key,
        source: 'sequence',
      },
      { gateway: deps.messaging.gateway, staleClaimMs: deps.staleClaimMs },
    ),
  );
}
