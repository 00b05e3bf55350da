import { DomainError } from '../../platform/errors';
import { safeFetch } from '../../platform/net/safe-fetch';
import { signedHeaders, type AttemptResult, type SendRequest } from '../../platform/shared/webhook-sender';

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
