import {
  isAddressAllowed,
  isHostAllowed,
  isPublicAddress,
  nonPublicReason,
  parseIp,
} from '../../../platform/net/address-policy';

describe('nonPublicReason', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.254', 'shared (CGNAT)'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['100::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback (IPv4-mapped)'],
    ['::ffff:7f00:1', 'loopback (IPv4-mapped)'],
    ['::ffff:10.0.0.1', 'private (IPv4-mapped)'],
    ['::ffff:169.254.169.254', 'link-local (IPv4-mapped)'],
    ['::ffff:0:0', 'unspecified (IPv4-mapped)'],
    ['64:ff9b::10.0.0.1', 'private (NAT64)'],
    ['64:ff9b::7f00:1', 'loopback (NAT64)'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:7f00:1::', 'loopback (6to4)'],
    ['2002:c0a8:101::1', 'private (6to4)'],
    ['::127.0.0.1', 'reserved'],
    ['::10.0.0.1', 'reserved'],
    ['not-an-ip', 'unparseable'],
    ['', 'unparseable'],
    ['1.2.3', 'unparseable'],
  ])('%s is not public (%s)', (ip, reason) => {
    expect(nonPublicReason(ip)).toBe(reason);
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.1.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:81c::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '[2606:4700:4700::1111]',
  ])('%s is public', (ip) => {
    expect(nonPublicReason(ip)).toBeNull();
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('parseIp', () => {
  it('expands IPv6 forms to the same bytes', () => {
    expect(Buffer.from(parseIp('::ffff:127.0.0.1')!)).toEqual(Buffer.from(parseIp('0:0:0:0:0:ffff:7f00:0001')!));
    expect(parseIp('::')).toHaveLength(16);
    expect(parseIp('1.2.3.4')).toEqual(Uint8Array.from([1, 2, 3, 4]));
    expect(parseIp('1::2::3')).toBeNull();
  });
});

describe('allow-list', () => {
  it.each([
    ['localhost', ['localhost'], true],
    ['LOCALHOST.', ['localhost'], true],
    ['api.internal', ['API.internal'], true],
    ['api.internal', ['other.internal'], false],
    ['127.0.0.1', ['127.0.0.1'], true],
    ['[::1]', ['::1'], true],
    ['::1', ['0:0:0:0:0:0:0:1'], true],
    ['10.1.2.3', ['10.0.0.0/8'], true],
    ['11.1.2.3', ['10.0.0.0/8'], false],
    ['sub.api.internal', ['api.internal'], false],
  ] as const)('host %s with %j → %s', (host, list, expected) => {
    expect(isHostAllowed(host, list)).toBe(expected);
  });

  it.each([
    ['127.0.0.1', ['127.0.0.1'], true],
    ['127.0.0.2', ['127.0.0.1'], false],
    ['fd00::5', ['fd00::/8'], true],
    ['10.0.0.1', ['localhost'], false],
    ['10.0.0.1', ['10.0.0.0/40'], false],
  ] as const)('address %s with %j → %s', (ip, list, expected) => {
    expect(isAddressAllowed(ip, list)).toBe(expected);
  });
});
