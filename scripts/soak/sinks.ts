// The soak's outside world: an SMTP server that can be stopped and started again on the same port (a
// mail outage refuses connections), and a webhook receiver. Both only record; the soak counts later.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SinkMail {
  to: string[];
  subject: string;
  messageId: string;
  at: number;
  /** The raw message, kept only for contract invitations (the driver signs from their link). */
  raw?: string;
}

export interface MailSink {
  readonly port: number;
  readonly received: SinkMail[];
  isUp(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Header value of a raw message head (folded lines joined). */
function header(raw: string, name: string): string {
  const head = (raw.split(/\r?\n\r?\n/)[0] ?? '').replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : '';
}

/** RFC 2047 encoded words (=?utf-8?Q?…?= / ?B?) of a Subject, decoded. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

export async function startMailSink(port: number): Promise<MailSink> {
  const received: SinkMail[] = [];
  let server: SMTPServer | null = null;
  const sockets = new Set<Socket>();
  const start = async (): Promise<void> => {
    if (server) return;
    const s = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      maxClients: 500,
      onConnect(session, callback) {
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const subject = decodeWords(header(raw, 'subject'));
          received.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject,
            messageId: header(raw, 'message-id'),
            at: Date.now(),
            ...(subject.startsWith('Please sign:') ? { raw } : {}),
          });
          callback();
        });
      },
    });
    s.server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.server.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    server = s;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    if (!s) return;
    server = null;
    // An outage: open connections drop too (a pooled transport must not keep sending through them).
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await start();
  return { port, received, isUp: () => server !== null, stop, start, close: stop };
}

export interface Hook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  readonly port: number;
  readonly received: Hook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(port: number): Promise<WebhookReceiver> {
  const received: Hook[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      received.push({ path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
