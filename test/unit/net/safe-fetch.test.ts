import http from 'node:http';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { safeFetch, type SafeFetchOptions } from '../../../platform/net/safe-fetch';
import { domainErrorOf } from '../../support/expect';

let server: http.Server;
let port: number;
let base: string;
const hits: Record<string, number> = {};
const open = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits[path] = (hits[path] ?? 0) + 1;
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      switch (path) {
        case '/ok':
          res.writeHead(200, { 'content-type': 'text/plain', 'x-multi': ['a', 'b'] }).end('hello');
          return;
        case '/echo':
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              method: req.method,
              host: req.headers.host,
              token: req.headers['x-token'],
              body: Buffer.concat(chunks).toString(),
              query: req.url,
            }),
          );
          return;
        case '/redirect':
          res.writeHead(302, { location: `${base}/ok` }).end('moved');
          return;
        case '/big':
          res.writeHead(200, { 'content-length': '1000' }).end(Buffer.alloc(1000, 1));
          return;
        case '/big-chunked':
          res.writeHead(200);
          for (let i = 0; i < 10; i++) res.write(Buffer.alloc(100, 2));
          res.end();
          return;
        case '/hang':
          return; // never answers
        case '/drip': {
          res.writeHead(200);
          const timer = setInterval(() => res.write('x'), 50);
          res.on('close', () => clearInterval(timer));
          return;
        }
        default:
          res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local: SafeFetchOptions = { allowHosts: ['127.0.0.1'] };

describe('refused targets (no allow-list)', () => {
  it.each([
    ['http://127.0.0.1:PORT/ok', /127\.0\.0\.1 is a loopback address/],
    ['http://localhost:PORT/ok', /localhost resolves to a loopback address/],
    ['http://[::1]:PORT/ok', /::1 is a loopback address/],
    ['http://0x7f.1:PORT/ok', /loopback/],
    ['http://2130706433:PORT/ok', /loopback/],
    ['http://[::ffff:127.0.0.1]:PORT/ok', /loopback \(IPv4-mapped\)/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://10.0.0.1/', /private/],
    ['http://100.64.1.1/', /CGNAT/],
    ['http://[fd00::1]/', /unique-local/],
    ['http://0.0.0.0:PORT/ok', /unspecified/],
  ])('%s', async (template, reason) => {
    const before = hits['/ok'] ?? 0;
    const err = await domainErrorOf(safeFetch(template.replace('PORT', String(port))));
    expect(err.code).toBe('validation');
    expect(err.message).toMatch(/^refusing to fetch /);
    expect(err.message).toMatch(reason);
    expect(hits['/ok'] ?? 0).toBe(before);
  });

  it('refuses a host when any one of its addresses is private', async () => {
    const resolve = jest.fn(async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ]);
    const err = await domainErrorOf(safeFetch('https://mixed.example/x', { resolve }));
    expect(err.code).toBe('validation');
    expect(err.message).toMatch(/mixed\.example resolves to a private address/);
  });

  it('refuses a host resolving to an IPv4-mapped private IPv6 address', async () => {
    const err = await domainErrorOf(
      safeFetch('https://mapped.example/', { resolve: async () => [{ address: '::ffff:192.168.0.10', family: 6 }] }),
    );
    expect(err.message).toMatch(/private \(IPv4-mapped\)/);
  });

  it('an allow-list entry for another host does not help', async () => {
    const err = await domainErrorOf(safeFetch(`${base}/ok`, { allowHosts: ['10.0.0.1', 'example.com'] }));
    expect(err.code).toBe('validation');
  });
});

describe('bad URLs and protocols', () => {
  it.each([
    ['not a url', /invalid URL/],
    ['', /invalid URL/],
    ['ftp://example.com/file', /ftp:/],
    ['file:///etc/passwd', /file:/],
    ['javascript:alert(1)', /javascript:/],
    ['gopher://example.com/', /gopher:/],
  ])('%j is a validation error', async (url, message) => {
    const err = await domainErrorOf(safeFetch(url));
    expect(err.code).toBe('validation');
    expect(err.message).toMatch(message);
  });

  it('https-only callers refuse http', async () => {
    const err = await domainErrorOf(safeFetch(`${base}/ok`, { ...local, allowedProtocols: ['https'] }));
    expect(err.code).toBe('validation');
    expect(err.message).toMatch(/only https allowed/);
  });

  it('a host that does not resolve is a validation error', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    const err = await domainErrorOf(
      safeFetch('https://nope.invalid/', { resolve: async () => Promise.reject(notFound) }),
    );
    expect(err.code).toBe('validation');
    expect(err.message).toMatch(/does not resolve/);
  });
});

describe('allowed exchanges', () => {
  it('fetches from an allow-listed IP and returns status, headers and body', async () => {
    const res = await safeFetch(`${base}/ok`, local);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.headers['x-multi']).toBe('a, b');
    expect(res.url).toBe(`${base}/ok`);
  });

  it('sends method, headers, body and query', async () => {
    const res = await safeFetch(`${base}/echo?a=1`, {
      ...local,
      method: 'post',
      headers: { 'x-token': 't1', 'content-type': 'text/plain' },
      body: 'payload',
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toEqual({
      method: 'POST',
      host: `127.0.0.1:${port}`,
      token: 't1',
      body: 'payload',
      query: '/echo?a=1',
    });
  });

  it('connects to the address it vetted, resolving once, and keeps the original Host', async () => {
    const resolve = jest.fn(async () => [{ address: '127.0.0.1', family: 4 }]);
    const res = await safeFetch(`http://internal.test:${port}/echo`, { allowHosts: ['internal.test'], resolve });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString()).host).toBe(`internal.test:${port}`);
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('an allow-listed address admits any name resolving to it', async () => {
    const res = await safeFetch(`http://svc.test:${port}/ok`, {
      allowHosts: ['127.0.0.0/8'],
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(res.status).toBe(200);
  });

  it('does not follow redirects: the 3xx comes back as is', async () => {
    const before = hits['/ok'] ?? 0;
    const res = await safeFetch(`${base}/redirect`, local);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${base}/ok`);
    expect(res.body.toString()).toBe('moved');
    expect(hits['/ok'] ?? 0).toBe(before);
  });

  it('returns 4xx answers rather than throwing', async () => {
    const res = await safeFetch(`${base}/missing`, local);
    expect(res.status).toBe(404);
  });
});

describe('bounds', () => {
  it('accepts a body of exactly maxBytes', async () => {
    const res = await safeFetch(`${base}/big`, { ...local, maxBytes: 1000 });
    expect(res.body).toHaveLength(1000);
  });

  it.each(['/big', '/big-chunked'])('refuses %s above maxBytes with too_large', async (path) => {
    const err = await domainErrorOf(safeFetch(`${base}${path}`, { ...local, maxBytes: 999 }));
    expect(err.code).toBe('too_large');
    expect(err.message).toMatch(/999-byte limit/);
  });

  it('times out when the server never answers', async () => {
    const started = Date.now();
    const err = await domainErrorOf(safeFetch(`${base}/hang`, { ...local, timeoutMs: 200 }));
    expect(err.code).toBe('upstream_failed');
    expect(err.message).toMatch(/within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('bounds the whole exchange, not just the wait for headers', async () => {
    const started = Date.now();
    const err = await domainErrorOf(safeFetch(`${base}/drip`, { ...local, timeoutMs: 300 }));
    expect(err.code).toBe('upstream_failed');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('bounds a DNS lookup that hangs', async () => {
    const err = await domainErrorOf(
      safeFetch('https://slow-dns.test/', { timeoutMs: 150, resolve: () => new Promise(() => undefined) }),
    );
    expect(err.code).toBe('upstream_failed');
  });

  it('a refused connection is upstream_failed', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await domainErrorOf(safeFetch(`http://127.0.0.1:${closedPort}/`, local));
    expect(err.code).toBe('upstream_failed');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });
});

describe('https', () => {
  // Test-only self-signed pair (CN=images.test): the handshake must fail verification, and the
  // server sees the original name as SNI although the socket went to the vetted address.
  const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg8Fxg3lRKIh8WbRdC
TL0TeqbUjwTU9cclLUEgtz0fLn2hRANCAAS/PWI4ojAEMeyLP5QUiyo+Aw9Wh7mE
+akIxPNgJgLEYr9UIKEu5biNCTRL18F0vrfes/166YUBzZDQf12HqmVS
-----END PRIVATE KEY-----`;
  const cert = `-----BEGIN CERTIFICATE-----
MIIBhDCCASmgAwIBAgIUIIkfh0/mK2E1W/DzMD6+l4YSafYwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLaW1hZ2VzLnRlc3QwIBcNMjYxMTIyMTAyOTM4WhgPMjEyNjEw
MjkxMDI5MzhaMBYxFDASBgNVBAMMC2ltYWdlcy50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEvz1iOKIwBDHsiz+UFIsqPgMPVoe5hPmpCMTzYCYCxGK/VCCh
LuW4jQk0S9fBdL633rP9eumFAc2Q0H9dh6plUqNTMFEwHQYDVR0OBBYEFJoKnetW
IxyZaRCA0zrMvN6FO/kPMB8GA1UdIwQYMBaAFJoKnetWIxyZaRCA0zrMvN6FO/kP
MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAOVbgBXCMRHvrD5W
z2/+5yX7iPfGfk/rT/+4vT+wvOu1AiEA7/S7QcIvM3pMY0ncggVlIYmjieXD43fv
hTUAQXq/6cM=
-----END CERTIFICATE-----`;

  it('connects to the vetted address with SNI = original host and verifies the certificate', async () => {
    const names: (string | undefined)[] = [];
    const context = tls.createSecureContext({ key, cert });
    const tlsServer = tls.createServer(
      {
        key,
        cert,
        SNICallback: (name, cb) => {
          names.push(name);
          cb(null, context);
        },
      },
      (s) => s.end(),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const tlsPort = (tlsServer.address() as AddressInfo).port;
    try {
      const resolve = jest.fn(async () => [{ address: '127.0.0.1', family: 4 }]);
      const err = await domainErrorOf(
        safeFetch(`https://images.test:${tlsPort}/a.png`, {
          allowHosts: ['images.test'],
          resolve,
          allowedProtocols: ['https'],
        }),
      );
      expect(err.code).toBe('upstream_failed');
      expect(err.message).toMatch(/SELF_SIGNED|certificate/i);
      expect(names).toEqual(['images.test']);
      expect(resolve).toHaveBeenCalledTimes(1);
    } finally {
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });
});
