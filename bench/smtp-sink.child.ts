// SMTP sink for bench:email, in its own process so its CPU is not the product's: accepts every
// message, counts them, answers "count" messages from the parent (IPC) with the number received.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let received = 0;
const server = new SMTPServer({
  secure: false,
  disabledCommands: ['STARTTLS'],
  allowInsecureAuth: true,
  authOptional: true,
  logger: false,
  // Enough for every pooled connection of both legs.
  maxClients: 200,
  onAuth: (_auth, _session, callback) => callback(null, { user: 'bench' }),
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      received++;
      callback();
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.server.address() as AddressInfo).port });
});
process.on('message', (m: unknown) => {
  if (m === 'count') process.send?.({ count: received });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
