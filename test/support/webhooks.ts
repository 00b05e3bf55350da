/** Webhook tests: a local receiver that verifies every request with the standardwebhooks library. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Ctx } from '../../platform/context';
import { newId } from '../../platform/ids';
import { createRecord } from '../../platform/shared/records';
import { WebhookDelivery } from '../../modules/webhooks/webhook.entity';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** Webhook.verify passed with one of the receiver's secrets. */
  verified: boolean;
  /** Secrets (by index in `secrets`) whose verification passed. */
  verifiedWith: number[];
  answered: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Secrets to verify with (set after creating the subscription). */
  secrets: string[];
  /** Status to answer the n-th request (0-based) with; default 200. */
  respond: (n: number, req: { headers: IncomingHttpHeaders; body: string }) => number;
  close(): Promise<void>;
}

export function verifyWith(
  secret: string,
  body: string,
  headers: IncomingHttpHeaders | Record<string, string>,
): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], secrets: [], respond: () => 200, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verifiedWith = receiver.secrets
        .map((s, i) => (verifyWith(s, body, req.headers) ? i : -1))
        .filter((i) => i >= 0);
      const answered = receiver.respond(receiver.received.length, { headers: req.headers, body });
      receiver.received.push({
        headers: req.headers,
        body,
        at: Date.now(),
        verified: verifiedWith.length > 0,
        verifiedWith,
        answered,
      });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A delivered delivery row of `subscriptionId` (for factories: only the outbox subscriber writes them). */
export async function insertDelivery(ctx: Ctx, subscriptionId: string): Promise<string> {
  const body = JSON.stringify({ type: 'company.created', timestamp: new Date().toISOString(), data: {} });
  const d = createRecord(ctx, WebhookDelivery, {
    subscriptionId,
    eventId: newId(),
    eventType: 'company.created',
    body,
    status: 'delivered',
    attempts: 1,
    retryStep: 0,
    lastStatusCode: 200,
    lastDurationMs: 5,
    lastAttemptAt: new Date(),
    deliveredAt: new Date(),
  });
  await ctx.em.flush();
  return d._id;
}
