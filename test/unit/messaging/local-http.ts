import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server whose answer each test sets; it records every request. */

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
export type Responder = (req: SeenRequest, res: http.ServerResponse) => void;

export interface LocalHttp {
  url: string;
  requests: SeenRequest[];
  respond(fn: Responder): void;
  close(): Promise<void>;
}

export const json =
  (status: number, body: unknown): Responder =>
  (_req, res) => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  };

export async function startHttp(): Promise<LocalHttp> {
  const requests: SeenRequest[] = [];
  let responder: Responder = json(200, {});
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      responder(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    respond: (fn) => {
      responder = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
      }),
  };
}
