import type { Context } from 'koa';
import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { DomainError } from '../../platform/errors';
import { authenticateInbound, receiveRawEmail } from './inbound.service';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { inboundEmailResultView } from './email.views';

const params = z.object({ accountId: z.string() });

/** The raw MIME: message/rfc822 (read here), text/plain (parsed by the body parser) or JSON `{ raw }`. */
async function rawMime(koa: Context, limit: number): Promise<Buffer> {
  const body = koa.request.body as unknown;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body && typeof body === 'object' && typeof (body as { raw?: unknown }).raw === 'string')
    return Buffer.from((body as { raw: string }).raw, 'utf8');
  if (!koa.request.is('message/rfc822', 'application/octet-stream')) {
    throw new DomainError(
      'validation',
      'body: send the raw message as message/rfc822 (or text/plain, or JSON { "raw": "…" })',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of koa.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new DomainError('too_large', `the message is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export const emailInboundRoutes: RouteFactory = (deps) => [
  publicRoute({
    method: 'POST',
    path: '/api/webhooks/email/inbound/:accountId',
    section: 'E-mail',
    params,
    rawBody: true,
    successStatus: 202,
    response: envelopes.data(inboundEmailResultView),
    // 401: a missing or wrong x-webhook-secret (the route has no API key, so 401 is not among its defaults).
    errors: [401],
    reason:
      "authenticated by the x-webhook-secret header: the mailbox's inbound secret (shown once by `crm email-account add`), compared in constant time",
    summary:
      'Receive one e-mail for a connected mailbox as raw MIME (the way hosted mail providers forward mail). Stored, threaded, linked to the sender; bounces (DSN) mark the original as bounced.',
    description:
      '401 on a missing or wrong secret, 404 for an unknown account. Re-delivering a message with the same Message-ID stores nothing new. 202 `{ data: { kind: "received", email, duplicate, replyTo } }` or `{ data: { kind: "bounced", emailId, recipients } }`.',
    handler: async ({ params: p, koa }) => {
      const ctx = await authenticateInbound(deps.orm.em, p.accountId, koa.get('x-webhook-secret') || undefined);
      const raw = await rawMime(koa, deps.config.bodyLimitBytes);
      return { status: 202, body: { data: await receiveRawEmail(ctx, p.accountId, raw) } };
    },
  }),
];
