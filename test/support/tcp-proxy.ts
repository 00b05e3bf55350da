import net from 'node:net';

/**
 * A TCP forwarder in front of a real service, so a test can take the service "down" for one app
 * (connections reset, new ones refused) and bring it back, without stopping the shared service.
 */
export interface TcpProxy {
  port: number;
  /** Outage: stop listening and cut every open connection. */
  down(): Promise<void>;
  /** Service back on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const host = target.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const listen = async (): Promise<void> => {
    const s = net.createServer((client) => {
      const upstream = net.connect({ host, port: target.port });
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
        sock.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as net.AddressInfo).port;
    server = s;
  };
  const down = async (): Promise<void> => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    down,
    async up() {
      if (!server) await listen();
    },
    close: down,
  };
}
