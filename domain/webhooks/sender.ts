import { Webhook } from 'standardwebhooks';
import { DomainError } from '../errors';
import { safeFetch, type SafeFetch } from '../net/safe-fetch';

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

/**
 * One POST through the guarded client (no private targets unless allow-listed, no redirects, bounded time). Never
 * throws.
 */
export async function sendWebhook(req: SendRequest): Promise<AttemptResult> {
  const started = performance.now();
  const fetch = req.fetch ?? safeFetch;
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: signedHeaders(req.webhookId, req.body, req.secrets),
      body: req.body,
      timeoutMs: req.timeoutMs,
      maxBytes: 1024 * 1024,
      allowHosts: req.allowHosts,
    });
    const durationMs = Math.round(performance.now() - started);
    const ok = res.status >= 200 && res.status < 300;
    const error = ok
      ? null
      : res.status >= 300 && res.status < 400
        ? `redirect ${res.status} (not followed)`
        : `HTTP ${res.status}`;
    return { ok, gone: res.status === 410, statusCode: res.status, error, durationMs };
  } catch (err) {
    const message = err instanceof DomainError || err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      gone: false,
      statusCode: null,
      error: message.slice(0, 1000),
      durationMs: Math.round(performance.now() - started),
    };
  }
}
