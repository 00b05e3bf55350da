import { promises as dnsPromises, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { DomainError } from '../errors';
import { isAddressAllowed, isHostAllowed, nonPublicReason, normalizeHost } from './address-policy';

/**
 * The one guarded outbound HTTP client (http_request actions, webhook deliveries, image
 * re-hosting): refuses non-public targets after DNS resolution, connects to the vetted address
 * itself (no second lookup, so DNS rebinding cannot swap the target), follows no redirects,
 * bounds total time and response size.
 */

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole exchange: DNS, connect, headers and body. Default 10 s. */
  timeoutMs?: number;
  /** Response body cap; more is a `too_large` error. Default 10 MiB. */
  maxBytes?: number;
  /** Host names, IPs or CIDRs that may be reached even when not public (tests, private deployments). */
  allowHosts?: readonly string[];
  /** Default `['https:', 'http:']`; the trailing colon is optional. */
  allowedProtocols?: readonly string[];
  /** Name resolution (all addresses); defaults to dns.lookup. Injectable for tests. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export interface SafeFetchResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL requested (never a redirect target: redirects are returned, not followed). */
  url: string;
}

export type SafeFetch = (url: string, options?: SafeFetchOptions) => Promise<SafeFetchResponse>;

const defaultResolve = (hostname: string): Promise<LookupAddress[]> =>
  dnsPromises.lookup(hostname, { all: true, verbatim: true });

const refuse = (origin: string, why: string): DomainError =>
  new DomainError('validation', `refusing to fetch ${origin}: ${why}`);
const failed = (origin: string, why: string): DomainError =>
  new DomainError('upstream_failed', `could not fetch ${origin}: ${why}`);

function parseTarget(raw: string, allowedProtocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('validation', `invalid URL "${raw.length > 100 ? raw.slice(0, 100) + '…' : raw}"`);
  }
  const allowed = allowedProtocols.map((p) => (p.endsWith(':') ? p : `${p}:`).toLowerCase());
  if (!allowed.includes(url.protocol)) {
    throw new DomainError(
      'validation',
      `refusing to fetch ${url.protocol}// URLs: only ${allowed.map((p) => p.slice(0, -1)).join(' or ')} allowed`,
    );
  }
  if (!url.hostname) throw new DomainError('validation', `invalid URL "${raw}": no host`);
  return url;
}

/** Every address the host stands for, each checked; one non-public address refuses the whole host. */
async function vettedAddresses(
  url: URL,
  allowHosts: readonly string[],
  resolve: NonNullable<SafeFetchOptions['resolve']>,
): Promise<LookupAddress[]> {
  const host = normalizeHost(url.hostname);
  const family = isIP(host);
  if (family) {
    const reason = nonPublicReason(host);
    if (reason && !isHostAllowed(host, allowHosts)) throw refuse(url.origin, `${host} is a ${reason} address`);
    return [{ address: host, family }];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      throw new DomainError('validation', `cannot fetch ${url.origin}: host ${host} does not resolve`);
    throw failed(url.origin, `DNS lookup failed (${code ?? (err as Error).message})`);
  }
  if (!addresses.length)
    throw new DomainError('validation', `cannot fetch ${url.origin}: host ${host} does not resolve`);
  if (isHostAllowed(host, allowHosts)) return addresses;
  for (const { address } of addresses) {
    const reason = nonPublicReason(address);
    if (reason && !isAddressAllowed(address, allowHosts))
      throw refuse(url.origin, `${host} resolves to a ${reason} address`);
  }
  return addresses;
}

/** A `lookup` for http.request that answers with the vetted addresses only. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    const wanted =
      options?.family === 4 || options?.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const list = wanted.length ? wanted : addresses;
    if (options?.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  }) as LookupFunction;
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export const safeFetch: SafeFetch = async (rawUrl, options = {}) => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const allowHosts = options.allowHosts ?? [];
  const url = parseTarget(rawUrl, options.allowedProtocols ?? ['https:', 'http:']);
  const origin = url.origin;

  let timer: NodeJS.Timeout | undefined;
  let onTimeout: () => void = () => undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(failed(origin, `no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  deadline.catch(() => undefined);

  try {
    const addresses = await Promise.race([
      vettedAddresses(url, allowHosts, options.resolve ?? defaultResolve),
      deadline,
    ]);
    const exchange = new Promise<SafeFetchResponse>((resolve, reject) => {
      const isHttps = url.protocol === 'https:';
      const host = normalizeHost(url.hostname);
      const headers: Record<string, string | number> = { ...options.headers };
      const body = options.body === undefined ? undefined : Buffer.from(options.body);
      if (body && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
        headers['content-length'] = body.length;
      const request = (isHttps ? https : http).request({
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: (options.method ?? 'GET').toUpperCase(),
        headers,
        auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
        // The socket goes to the vetted address; Host and SNI keep the original name.
        lookup: pinnedLookup(addresses),
        ...(isHttps && !isIP(host) ? { servername: host } : {}),
        agent: false,
      });
      onTimeout = () => request.destroy();
      request.on('error', (err: NodeJS.ErrnoException) => reject(failed(origin, err.code ?? err.message)));
      request.on('response', (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          request.destroy();
          reject(new DomainError('too_large', `response from ${origin} is larger than the ${maxBytes}-byte limit`));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxBytes) {
            request.destroy();
            reject(new DomainError('too_large', `response from ${origin} is larger than the ${maxBytes}-byte limit`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('aborted', () => reject(failed(origin, 'connection closed before the response ended')));
        res.on('error', (err: NodeJS.ErrnoException) => reject(failed(origin, err.code ?? err.message)));
        res.on('end', () => {
          if (!res.complete) return reject(failed(origin, 'connection closed before the response ended'));
          resolve({
            status: res.statusCode ?? 0,
            headers: flattenHeaders(res.headers),
            body: Buffer.concat(chunks),
            url: url.href,
          });
        });
      });
      request.end(body);
    });
    return await Promise.race([exchange, deadline]);
  } finally {
    clearTimeout(timer);
  }
};
