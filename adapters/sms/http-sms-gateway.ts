import { DomainError } from '../../platform/errors';
import { safeFetch as defaultFetch, type SafeFetch } from '../../platform/net/safe-fetch';
import { DeliveryError } from '../../platform/ports/delivery-error.port';
import type { SmsGateway, SmsMessage, SmsSendResult } from '../../platform/ports/messaging.port';
import type { SmsSettings } from '../../platform/ports/messaging.port';

/**
 * Generic HTTP SMS gateway. Contract (README "SMS gateway"):
 *   POST SMS_GATEWAY_URL, `Authorization: Bearer SMS_GATEWAY_TOKEN`, `Content-Type: application/json`,
 *   `Idempotency-Key: <outbound message id>` (the same on every retry of one message),
 *   body `{ "to": "+4512345678", "from": "+4587654321" | "Acme", "message": "…" }`.
 *   2xx = accepted; JSON body `{ "id": "…", "status"?: "…" }` (`messageId` is read when `id` is absent).
 *   4xx = refused (not sent; permanent except 408/429); 5xx = failed (not sent, retryable);
 *   no complete answer (timeout, connection dropped after the request) = outcome unknown.
 */

export const SMS_TIMEOUT_MS = 15_000;
export const SMS_MAX_RESPONSE_BYTES = 64 * 1024;

export interface HttpSmsGatewayOptions {
  allowHosts?: readonly string[];
  timeoutMs?: number;
  fetch?: SafeFetch;
}

function answerDetail(body: Buffer): string {
  const text = body.toString('utf8').trim();
  try {
    const json = JSON.parse(text) as { error?: unknown; message?: unknown };
    const said = typeof json.error === 'string' ? json.error : typeof json.message === 'string' ? json.message : null;
    if (said) return said.slice(0, 300);
  } catch {
    /* not JSON: quote the text */
  }
  return text.slice(0, 300) || '(empty body)';
}

export function createHttpSmsGateway(settings: SmsSettings, options: HttpSmsGatewayOptions = {}): SmsGateway {
  const fetch = options.fetch ?? defaultFetch;
  const origin = new URL(settings.url).origin;
  return {
    defaultFrom: settings.defaultFrom,
    defaultCountryCode: settings.defaultCountryCode,
    async send(sms: SmsMessage): Promise<SmsSendResult> {
      let res;
      try {
        res = await fetch(settings.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${settings.token}`,
            'content-type': 'application/json',
            accept: 'application/json',
            ...(sms.reference ? { 'idempotency-key': sms.reference } : {}),
          },
          body: JSON.stringify({ to: sms.to, from: sms.from, message: sms.message }),
          timeoutMs: options.timeoutMs ?? SMS_TIMEOUT_MS,
          maxBytes: SMS_MAX_RESPONSE_BYTES,
          allowHosts: options.allowHosts,
        });
      } catch (err) {
        throw gatewayFetchError(err, origin);
      }
      if (res.status >= 200 && res.status < 300) {
        let body: { id?: unknown; messageId?: unknown; status?: unknown } = {};
        try {
          body = JSON.parse(res.body.toString('utf8')) as typeof body;
        } catch {
          /* accepted without a JSON body: no provider id */
        }
        const id = body?.id ?? body?.messageId;
        return {
          providerMessageId: typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 1000) : null,
          status: typeof body?.status === 'string' ? body.status.slice(0, 50) : 'sent',
        };
      }
      const permanent = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
      throw new DeliveryError(
        `SMS gateway ${origin} answered ${res.status}: ${answerDetail(res.body)}`,
        'not_sent',
        permanent,
      );
    },
  };
}

/** safeFetch failures: refused targets are configuration problems; no answer after sending is unknown. */
function gatewayFetchError(err: unknown, origin: string): Error {
  if (!(err instanceof DomainError))
    return new DeliveryError(`SMS gateway ${origin} failed: ${String(err)}`, 'unknown', false);
  if (err.code === 'validation')
    return new DomainError(
      'not_configured',
      `SMS is misconfigured: ${err.message} (add the gateway host to OUTBOUND_ALLOW_HOSTS if it is private)`,
    );
  if (err.code === 'too_large') return new DeliveryError(`SMS gateway ${origin}: ${err.message}`, 'unknown', false);
  const refused = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|DNS lookup failed|does not resolve/.test(
    err.message,
  );
  return new DeliveryError(`SMS gateway ${origin}: ${err.message}`, refused ? 'not_sent' : 'unknown', false);
}
