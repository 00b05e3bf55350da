import { isIP, isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses outbound HTTP may reach. Pure functions over parsed bytes (no DNS) so the
 * rules are testable as a table; safe-fetch.ts applies them to every address a host resolves to.
 */

interface Range {
  bytes: Uint8Array;
  prefix: number;
  label: string;
}

function parseIPv4(ip: string): Uint8Array | null {
  if (!isIPv4(ip)) return null;
  return Uint8Array.from(ip.split('.').map(Number));
}

/** 16 bytes of an IPv6 address (zone id ignored, dotted-quad tail accepted), or null. */
function parseIPv6(input: string): Uint8Array | null {
  let ip = input.split('%')[0] ?? '';
  if (!isIPv6(ip)) return null;
  const lastColon = ip.lastIndexOf(':');
  const tail = ip.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (!v4) return null;
    ip = `${ip.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const [head = '', rest] = ip.split('::');
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...restGroups];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 0xff;
  });
  return bytes;
}

/** Bytes of an IPv4 (4) or IPv6 (16) literal, brackets allowed; null when not an IP. */
export function parseIp(ip: string): Uint8Array | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  return parseIPv4(bare) ?? parseIPv6(bare);
}

function inPrefix(bytes: Uint8Array, range: { bytes: Uint8Array; prefix: number }): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

function cidr(spec: string, label: string): Range {
  const [ip = '', prefix] = spec.split('/');
  const bytes = parseIp(ip);
  if (!bytes) throw new Error(`bad range ${spec}`);
  return { bytes, prefix: prefix === undefined ? bytes.length * 8 : Number(prefix), label };
}

// IANA special-purpose registries; anything here is never a legitimate public web target.
const V4_RANGES: Range[] = [
  cidr('0.0.0.0/8', 'unspecified'),
  cidr('10.0.0.0/8', 'private'),
  cidr('100.64.0.0/10', 'shared (CGNAT)'),
  cidr('127.0.0.0/8', 'loopback'),
  cidr('169.254.0.0/16', 'link-local'),
  cidr('172.16.0.0/12', 'private'),
  cidr('192.0.0.0/24', 'reserved'),
  cidr('192.0.2.0/24', 'documentation'),
  cidr('192.88.99.0/24', 'reserved'),
  cidr('192.168.0.0/16', 'private'),
  cidr('198.18.0.0/15', 'reserved'),
  cidr('198.51.100.0/24', 'documentation'),
  cidr('203.0.113.0/24', 'documentation'),
  cidr('224.0.0.0/4', 'multicast'),
  cidr('240.0.0.0/4', 'reserved'),
];

const V6_RANGES: Range[] = [
  cidr('::/128', 'unspecified'),
  cidr('::1/128', 'loopback'),
  // Rest of ::/8 (IPv4-compatible, SIIT, NAT64 local-use); mapped and NAT64 are handled first.
  cidr('::/8', 'reserved'),
  cidr('100::/64', 'reserved'),
  // IETF protocol assignments, Teredo included: Teredo hides the real IPv4 target.
  cidr('2001::/23', 'reserved'),
  cidr('2001:db8::/32', 'documentation'),
  cidr('3fff::/20', 'documentation'),
  cidr('5f00::/16', 'reserved'),
  cidr('fc00::/7', 'unique-local'),
  cidr('fe80::/10', 'link-local'),
  cidr('fec0::/10', 'site-local'),
  cidr('ff00::/8', 'multicast'),
];

// IPv6 forms that carry an IPv4 address the packets really go to.
const MAPPED = cidr('::ffff:0:0/96', 'IPv4-mapped');
const NAT64 = cidr('64:ff9b::/96', 'NAT64');
const SIX_TO_FOUR = cidr('2002::/16', '6to4');

function v4Reason(bytes: Uint8Array): string | null {
  return V4_RANGES.find((r) => inPrefix(bytes, r))?.label ?? null;
}

/**
 * Why an address is not a public unicast target ('loopback', 'private', 'link-local', ...),
 * or null when it is public. Anything that is not an IP literal counts as not public.
 */
export function nonPublicReason(ip: string): string | null {
  const bytes = parseIp(ip);
  if (!bytes) return 'unparseable';
  if (bytes.length === 4) return v4Reason(bytes);
  for (const [range, offset] of [
    [MAPPED, 12],
    [NAT64, 12],
    [SIX_TO_FOUR, 2],
  ] as const) {
    if (!inPrefix(bytes, range)) continue;
    const reason = v4Reason(bytes.subarray(offset, offset + 4));
    return reason ? `${reason} (${range.label})` : null;
  }
  return V6_RANGES.find((r) => inPrefix(bytes, r))?.label ?? null;
}

export const isPublicAddress = (ip: string): boolean => nonPublicReason(ip) === null;

/** Host names compare lower-case, without brackets or a trailing dot. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** The URL host itself is allow-listed (a name, or an IP literal in any spelling). */
export function isHostAllowed(host: string, allowHosts: readonly string[]): boolean {
  const h = normalizeHost(host);
  if (isIP(h)) return isAddressAllowed(h, allowHosts);
  return allowHosts.some((entry) => normalizeHost(entry) === h);
}

/** A resolved address is allow-listed: equal to an IP entry or inside a CIDR entry (10.0.0.0/8). */
export function isAddressAllowed(ip: string, allowHosts: readonly string[]): boolean {
  const bytes = parseIp(ip);
  if (!bytes) return false;
  return allowHosts.some((entry) => {
    const [addr = '', prefix] = normalizeHost(entry).split('/');
    const entryBytes = parseIp(addr);
    if (!entryBytes) return false;
    const bits = prefix === undefined ? entryBytes.length * 8 : Number(prefix);
    if (!Number.isInteger(bits) || bits < 0 || bits > entryBytes.length * 8) return false;
    return inPrefix(bytes, { bytes: entryBytes, prefix: bits });
  });
}
