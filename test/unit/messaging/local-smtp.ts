import net, { type AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/** A real SMTP server on 127.0.0.1 (ephemeral port) that keeps what it receives. */

export interface ReceivedMail {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
  headers: Record<string, string>;
  /** When the message was accepted (Date.now()). */
  receivedAt: number;
}

export interface LocalSmtp {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** Header block of a raw message: lower-case names, folded lines joined. */
export function parseHeaders(raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

export async function startSmtp(
  opts: {
    user?: string;
    password?: string;
    rejectRecipient?: RegExp;
    rejectData?: { code: number; message: string };
    /** Answers each message this long after its data arrived (a slow server): it counts as received then. */
    delayMs?: number;
  } = {},
): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !opts.user,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password)
        return callback(null, { user: auth.username });
      const err = Object.assign(new Error('Invalid username or password'), { responseCode: 535 });
      return callback(err);
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (opts.rejectRecipient?.test(address.address))
        return callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (opts.rejectData)
          return callback(Object.assign(new Error(opts.rejectData.message), { responseCode: opts.rejectData.code }));
        const raw = Buffer.concat(chunks).toString('utf8');
        const accept = (): void => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            raw,
            headers: parseHeaders(raw),
            receivedAt: Date.now(),
          });
          callback();
        };
        if (opts.delayMs) setTimeout(accept, opts.delayMs);
        else accept();
      });
    },
  });
  // A client that vanishes mid-session (a worker killed -9) resets its socket: a server shrugs that off.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * An SMTP server that takes the whole message and then drops the connection without answering
 * the final dot: the client cannot know whether the message was accepted.
 */
export async function startDroppingSmtp(): Promise<{
  port: number;
  dataReceived: () => number;
  close(): Promise<void>;
}> {
  let messages = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let inData = false;
    let buffer = '';
    socket.write('220 localhost ESMTP test\r\n');
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (inData) {
        if (buffer.includes('\r\n.\r\n')) {
          messages++;
          socket.destroy();
        }
        return;
      }
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 localhost\r\n');
        else if (verb === 'MAIL' || verb === 'RCPT') socket.write('250 OK\r\n');
        else if (verb === 'DATA') {
          socket.write('354 go ahead\r\n');
          inData = true;
          return;
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    dataReceived: () => messages,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
