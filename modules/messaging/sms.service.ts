import type { Ctx } from '../../platform/context';
import { firstPhoneMatch } from '../crm-connect';
import { DomainError, validation } from '../../platform/errors';
import { Person } from '../people';
import { inTransaction } from '../../platform/shared/tx';
import type { FullRow } from '../../platform/orm/lean';
import { normalizePhoneNumber, normalizeSmsSender } from './addresses';
import {
  checkIdempotencyKey,
  checkLinks,
  claimOutbound,
  findSent,
  MESSAGE_SOURCES,
  recordFailure,
  recordSent,
  type MessageLinks,
  type MessageSource,
  type OutboundRow,
} from './outbound.service';
import type { SmsGateway } from '../../platform/ports/messaging.port';
import { SMS_NOT_CONFIGURED } from './settings';
import { SmsMessage } from './sms-message.entity';
import { counterpartyOf, smsThreadColumns } from './sms-phone';

/** Ten concatenated segments; gateways split longer texts themselves. Counted in characters (code points). */
export const MAX_SMS_LENGTH = 1600;

export interface SendSmsInput {
  to: string;
  message: string;
  /** E.164 number or alphanumeric sender id (≤ 11); default SMS_DEFAULT_FROM. */
  from?: string;
  links: MessageLinks;
  idempotencyKey?: string;
  source?: MessageSource;
  /** The automation execution, sequence enrollment or scheduled SMS behind the send (events carry it). */
  sourceRef?: string;
}

export interface SentSms {
  /** The sms_message record (the same id as its outbound claim). */
  smsId: string;
  outboundMessageId: string;
  activityId: string;
  providerMessageId: string | null;
  providerStatus: string;
  to: string;
  from: string;
  status: 'sent';
  replayed: boolean;
}

export interface SmsDeps {
  gateway: SmsGateway;
  staleClaimMs?: number;
}

export interface ValidSms {
  to: string;
  from: string;
  message: string;
  source: MessageSource;
  idempotencyKey: string | null;
}

/** Checks and normalises a send request (pure). */
export function validateSms(input: SendSmsInput, defaults: { from?: string; countryCode?: string }): ValidSms {
  if (typeof input.to !== 'string') throw validation('to: is required');
  const to = normalizePhoneNumber(input.to, defaults.countryCode);
  if ('error' in to) throw validation(`to: ${to.error}`);
  if (typeof input.message !== 'string' || !input.message.trim()) throw validation('message: is required');
  const length = [...input.message].length;
  if (length > MAX_SMS_LENGTH)
    throw validation(`message: must be at most ${MAX_SMS_LENGTH} characters (got ${length})`);
  const rawFrom = input.from?.trim() ? input.from : defaults.from;
  if (!rawFrom)
    throw new DomainError(
      'not_configured',
      `${SMS_NOT_CONFIGURED} (no sender: SMS_DEFAULT_FROM is not set and the message names none)`,
    );
  const from = normalizeSmsSender(rawFrom, defaults.countryCode);
  if ('error' in from) throw validation(`from: ${from.error}`);
  const source = input.source ?? 'api';
  if (!MESSAGE_SOURCES.includes(source)) throw validation(`source: must be one of ${MESSAGE_SOURCES.join(', ')}`);
  return {
    to: to.phone,
    from: from.from,
    message: input.message,
    source,
    idempotencyKey: checkIdempotencyKey(input.idempotencyKey),
  };
}

/** Links of a send that names none: the first record holding the number (crm-connect rule). */
async function resolveLinks(ctx: Ctx, to: string): Promise<MessageLinks> {
  const match = await firstPhoneMatch(ctx, to);
  if (!match) return {};
  if (match.entityType === 'company') return { companyId: match._id };
  if (match.entityType === 'lead') return { leadId: match._id };
  const person = await ctx.em.findOne(Person, { _id: match._id });
  return { personId: match._id, ...(person?.companyId ? { companyId: person.companyId } : {}) };
}

const hasLinks = (links: MessageLinks | undefined): links is MessageLinks =>
  !!links && Object.values(links).some(Boolean);

/**
 * Sends one SMS: validates, records it (an sms_message row and a timeline activity of type `sms`
 * on the linked records, or on the contact the number resolves to when none are given) and hands
 * it to the gateway, at most once per idempotencyKey. Must not run inside a transaction.
 */
export async function sendSms(ctx: Ctx, input: SendSmsInput, deps: SmsDeps): Promise<SentSms> {
  deps.gateway.assertConfigured?.();
  const sms = validateSms(input, { from: deps.gateway.defaultFrom, countryCode: deps.gateway.defaultCountryCode });
  const base = { to: sms.to, from: sms.from, status: 'sent' as const };
  const replay = (row: OutboundRow): SentSms => ({
    ...base,
    smsId: row._id,
    outboundMessageId: row._id,
    activityId: row.activityId,
    providerMessageId: row.providerMessageId,
    providerStatus: String(row.result?.providerStatus ?? 'sent'),
    replayed: true,
  });
  const done = await findSent(ctx, 'sms', sms.idempotencyKey);
  if (done) return replay(done);
  if (hasLinks(input.links)) await checkLinks(ctx, input.links);
  const links = hasLinks(input.links) ? input.links : await resolveLinks(ctx, sms.to);
  const counterparty = counterpartyOf(sms.to)!;
  const sourceRef = input.sourceRef?.slice(0, 100) ?? null;
  const claim = await claimOutbound(
    ctx,
    {
      channel: 'sms',
      idempotencyKey: sms.idempotencyKey,
      source: sms.source,
      recipients: [sms.to],
      links,
      activity: {
        summary: `SMS to ${sms.to}`,
        description: sms.message,
        metadata: { to: sms.to, from: sms.from, source: sms.source, messageId: null },
      },
      onClaim: ({ outboundId: id, activityId, at }) => [
        {
          table: 'sms_message',
          row: {
            _id: id,
            workspaceId: ctx.actor.workspaceId,
            createdAt: at,
            updatedAt: at,
            direction: 'outbound',
            from: sms.from,
            to: sms.to,
            body: sms.message,
            status: 'queued',
            providerMessageId: null,
            unread: false,
            starred: false,
            ...smsThreadColumns(counterparty, links),
            source: sms.source,
            sourceRef,
            activityId,
            error: null,
            sentAt: null,
            deliveredAt: null,
          } satisfies FullRow<SmsMessage>,
        },
      ],
    },
    deps.staleClaimMs,
  );
  const { row } = claim;
  if (claim.kind === 'sent') return replay(row);
  // A failed earlier attempt is being sent again: its record shows the new attempt.
  if (row.attempts > 1)
    await ctx.em.nativeUpdate(SmsMessage, { _id: row._id }, { status: 'queued', error: null, updatedAt: new Date() });
  let sent;
  try {
    sent = await deps.gateway.send({ to: sms.to, from: sms.from, message: sms.message, reference: row._id });
  } catch (err) {
    throw await inTransaction(ctx, async () => {
      const out = await recordFailure(ctx, row, err, 'sms');
      const unknown = out !== err;
      const message = err instanceof Error ? err.message : String(err);
      await ctx.em.nativeUpdate(
        SmsMessage,
        { _id: row._id },
        { status: unknown ? 'unknown' : 'failed', error: message.slice(0, 2000), updatedAt: new Date() },
      );
      return out;
    });
  }
  const sentAt = new Date();
  await recordSent(
    ctx,
    row,
    { providerMessageId: sent.providerMessageId, result: { providerStatus: sent.status } },
    {
      type: 'sms_sent',
      entityType: 'sms',
      payload: {
        sms: { _id: row._id, from: sms.from, to: sms.to, body: sms.message },
        links,
        source: sms.source,
        ...(sourceRef ? { sourceRef } : {}),
        providerMessageId: sent.providerMessageId,
        to: sms.to,
        from: sms.from,
      },
    },
    [
      {
        // A delivery report may already have arrived and moved the record's status on.
        sql:
          "update sms_message set status = case when status in ('queued', 'failed', 'unknown') then 'sent' else status end," +
          ' provider_message_id = ?, sent_at = ?, error = null, updated_at = ? where workspace_id = ? and id = ?',
        params: [sent.providerMessageId, sentAt, sentAt, ctx.actor.workspaceId, row._id],
      },
    ],
  );
  return {
    ...base,
    smsId: row._id,
    outboundMessageId: row._id,
    activityId: row.activityId,
    providerMessageId: sent.providerMessageId,
    providerStatus: sent.status,
    replayed: false,
  };
}
