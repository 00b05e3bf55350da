import type { Ctx } from '../context';
import { DomainError, validation } from '../errors';
import { normalizePhoneNumber, normalizeSmsSender } from './addresses';
import {
  checkIdempotencyKey, checkLinks, claimOutbound, findSent, MESSAGE_SOURCES, recordFailure, recordSent,
  type MessageLinks, type MessageSource, type OutboundRow,
} from './outbound.service';
import type { SmsGateway } from './ports';
import { SMS_NOT_CONFIGURED } from './settings';

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
}

export interface SentSms {
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

export interface ValidSms { to: string; from: string; message: string; source: MessageSource; idempotencyKey: string | null }

/** Checks and normalises a send request (pure). */
export function validateSms(input: SendSmsInput, defaults: { from?: string; countryCode?: string }): ValidSms {
  if (typeof input.to !== 'string') throw validation('to: is required');
  const to = normalizePhoneNumber(input.to, defaults.countryCode);
  if ('error' in to) throw validation(`to: ${to.error}`);
  if (typeof input.message !== 'string' || !input.message.trim()) throw validation('message: is required');
  const length = [...input.message].length;
  if (length > MAX_SMS_LENGTH) throw validation(`message: must be at most ${MAX_SMS_LENGTH} characters (got ${length})`);
  const rawFrom = input.from?.trim() ? input.from : defaults.from;
  if (!rawFrom) throw new DomainError('not_configured', `${SMS_NOT_CONFIGURED} (no sender: SMS_DEFAULT_FROM is not set and the message names none)`);
  const from = normalizeSmsSender(rawFrom, defaults.countryCode);
  if ('error' in from) throw validation(`from: ${from.error}`);
  const source = input.source ?? 'api';
  if (!MESSAGE_SOURCES.includes(source)) throw validation(`source: must be one of ${MESSAGE_SOURCES.join(', ')}`);
  return { to: to.phone, from: from.from, message: input.message, source, idempotencyKey: checkIdempotencyKey(input.idempotencyKey) };
}

/**
 * Sends one SMS: validates, records it on the linked records' timeline (activity type `sms`) and
 * hands it to the gateway, at most once per idempotencyKey. Must not run inside a transaction.
 */
export async function sendSms(ctx: Ctx, input: SendSmsInput, deps: SmsDeps): Promise<SentSms> {
  deps.gateway.assertConfigured?.();
  const sms = validateSms(input, { from: deps.gateway.defaultFrom, countryCode: deps.gateway.defaultCountryCode });
  const base = { to: sms.to, from: sms.from, status: 'sent' as const };
  const replay = (row: OutboundRow): SentSms => ({
    ...base, outboundMessageId: row._id, activityId: row.activityId, providerMessageId: row.providerMessageId,
    providerStatus: String(row.result?.providerStatus ?? 'sent'), replayed: true,
  });
  const done = await findSent(ctx, 'sms', sms.idempotencyKey);
  if (done) return replay(done);
  await checkLinks(ctx, input.links ?? {});
  const claim = await claimOutbound(ctx, {
    channel: 'sms',
    idempotencyKey: sms.idempotencyKey,
    source: sms.source,
    recipients: [sms.to],
    links: input.links ?? {},
    activity: { summary: `SMS to ${sms.to}`, description: sms.message, metadata: { to: sms.to, from: sms.from, source: sms.source, messageId: null } },
  }, deps.staleClaimMs);
  const { row } = claim;
  if (claim.kind === 'sent') return replay(row);
  let sent;
  try {
    sent = await deps.gateway.send({ to: sms.to, from: sms.from, message: sms.message, reference: row._id });
  } catch (err) {
    throw await recordFailure(ctx, row, err, 'sms');
  }
  await recordSent(ctx, row, { providerMessageId: sent.providerMessageId, result: { providerStatus: sent.status } }, {
    type: 'sms_sent', entityType: 'sms',
    payload: { providerMessageId: sent.providerMessageId, to: sms.to, from: sms.from, source: sms.source, links: input.links ?? {} },
  });
  return { ...base, outboundMessageId: row._id, activityId: row.activityId, providerMessageId: sent.providerMessageId, providerStatus: sent.status, replayed: false };
}
