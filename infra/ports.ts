import net from 'node:net';

/** True when nothing listens on host:port (we can bind it ourselves). */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

/** Throws a message naming the service and the env var to change when the port is taken. */
export async function assertPortFree(port: number, service: string, envVar: string): Promise<void> {
  if (!(await isPortFree(port))) {
    throw new Error(
      `Port ${port} for ${service} is already in use on 127.0.0.1. ` +
        `Stop whatever listens there, or choose another port with ${envVar}=<port>.`,
    );
  }
}

export function parsePort(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535), got "${value}"`);
  }
  return port;
}
