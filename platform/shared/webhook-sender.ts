import { Webhook } from 'standardwebhooks';
import type { SafeFetch } from '../net/safe-fetch';

/**
 * Signing and the attempt types of webhook delivery (modules/webhooks); the HTTP sender is
 * adapters/webhooks/http-sender.ts. Here, below both, so that the adapter imports no module folder.
 */

/** What one attempt produced; `gone` (410) disables the subscription. */
export interface AttemptResult {
  ok: boolean;
  gone: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface SendRequest {
  url: string;
  webhookId: string;
  body: string;
  /** Current secret first; during a rotation's overlap also the previous one (both signatures are sent). */
  secrets: readonly string[];
  allowHosts: readonly string[];
  timeoutMs: number;
  fetch?: SafeFetch;
}

const signers = new Map<string, Webhook>();
function signer(secret: string): Webhook {
  let w = signers.get(secret);
  if (!w) {
    if (signers.size > 1000) signers.clear();
    w = new Webhook(secret);
    signers.set(secret, w);
  }
  return w;
}

/**
 * Standard Webhooks headers for one attempt: signed over `<id>.<timestamp>.<body>`, one `v1,…` per secret,
 * space-separated.
 */
export function signedHeaders(
  webhookId: string,
  body: string,
  secrets: readonly string[],
  at = new Date(),
): Record<string, string> {
  const signature = secrets.map((s) => signer(s).sign(webhookId, at, body)).join(' ');
  return {
    'content-type': 'application/json',
    'user-agent': 'crm-webhooks/1',
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
