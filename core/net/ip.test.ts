import { describe, expect, test } from 'bun:test';
import { isIP } from 'node:net';
import fc from 'fast-check';
import { blockReason, formatIp, inCidr, parseCidr, parseIp } from './ip';
import { checkUrl, EgressError, parseAllowList } from './policy';

const reason = (s: string) => {
  const b = parseIp(s);
  if (!b) throw new Error(`unparsable ${s}`);
  return blockReason(b);
};

describe('address classification', () => {
  test.each([
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2002:a00:1::', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['::10.0.0.1', 'reserved'],
    // IPv4-mapped IPv6 is judged as the IPv4 address it carries, in either spelling.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['0:0:0:0:0:ffff:a00:5', 'private'],
    // NAT64 reaches the embedded IPv4 address.
    ['64:ff9b::a00:1', 'private'],
  ])('%s is refused as %s', (addr, why) => {
    expect(reason(addr)).toBe(why as never);
  });

  test.each([
    '93.184.216.34',
    '8.8.8.8',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '198.20.0.1',
    '2606:4700::1111',
    '64:ff9b::808:808',
    '::ffff:8.8.8.8',
  ])('%s is public', (addr) => expect(reason(addr)).toBeNull());
});

describe('parsing', () => {
  test.each([
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.4 x',
    '::1::',
    '1:2:3:4:5:6:7:8:9',
    'fe80::1%eth0',
    'gggg::',
    '',
    '1:2:3:4:5:6:7::8:9',
  ])('%p is not an address (fail closed)', (s) => expect(parseIp(s)).toBeNull());

  test('agrees with node:net on random IPv6 text and round-trips through formatIp', () => {
    fc.assert(
      fc.property(fc.ipV6(), (s) => {
        expect(isIP(s)).toBe(6);
        const b = parseIp(s);
        expect(b).not.toBeNull();
        expect(parseIp(formatIp(b!))).toEqual(b!);
      }),
    );
    fc.assert(fc.property(fc.ipV4(), (s) => expect(formatIp(parseIp(s)!)).toBe(s)));
  });

  test('formatIp gives the RFC 5952 short form', () => {
    expect(formatIp(parseIp('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1');
    expect(formatIp(parseIp('0:0:0:0:0:0:0:1')!)).toBe('::1');
    expect(formatIp(parseIp('::ffff:127.0.0.1')!)).toBe('127.0.0.1');
  });

  test('CIDR matching respects the prefix and the family', () => {
    const c = parseCidr('10.0.0.0/8')!;
    expect(inCidr(parseIp('10.255.1.1')!, c)).toBe(true);
    expect(inCidr(parseIp('11.0.0.0')!, c)).toBe(false);
    expect(inCidr(parseIp('::ffff:10.0.0.1')!, c)).toBe(true);
    expect(inCidr(parseIp('::a00:1')!, c)).toBe(false);
    expect(inCidr(parseIp('100.127.0.1')!, parseCidr('100.64.0.0/10')!)).toBe(true);
    expect(inCidr(parseIp('100.128.0.1')!, parseCidr('100.64.0.0/10')!)).toBe(false);
    expect(inCidr(parseIp('10.1.2.3')!, parseCidr('::ffff:10.0.0.0/104')!)).toBe(true);
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('fd00::/129')).toBeNull();
  });
});

describe('SVC_EGRESS_ALLOW parsing', () => {
  test('takes hosts, addresses and CIDRs', () => {
    const a = parseAllowList(' 127.0.0.1, 10.0.0.0/8 ,Internal.Example., [::1], fd00::/8,');
    expect([...a.hosts]).toEqual(['internal.example']);
    expect(a.cidrs.length).toBe(4);
  });
  test.each(['10.0.0.300', '10.0.0.0/33', 'bad host', 'http://x', '::1/200'])('refuses the malformed entry %p', (e) => {
    expect(() => parseAllowList(e)).toThrow(/Invalid SVC_EGRESS_ALLOW entry/);
  });
});

describe('checkUrl (registration-time validation, no network)', () => {
  const refused = (url: string, opts: Parameters<typeof checkUrl>[1] = {}) => {
    try {
      checkUrl(url, { allow: [], ...opts });
    } catch (e) {
      expect(e).toBeInstanceOf(EgressError);
      return e as EgressError;
    }
    throw new Error(`${url} was accepted`);
  };

  test('accepts http and https URLs with public or unresolved hosts', () => {
    expect(checkUrl('https://hooks.example.com/x?y=1', { allow: [] }).hostname).toBe('hooks.example.com');
    expect(checkUrl('http://8.8.8.8:8080/', { allow: [] }).port).toBe('8080');
  });
  test('refuses other schemes, userinfo and garbage', () => {
    expect(refused('ftp://example.com/').code).toBe('egress_invalid_url');
    expect(refused('file:///etc/passwd').code).toBe('egress_invalid_url');
    expect(refused('javascript:alert(1)').code).toBe('egress_invalid_url');
    expect(refused('https://user:pw@example.com/').message).toMatch(/user name or password/);
    expect(refused('not a url').code).toBe('egress_invalid_url');
  });
  test('httpsOnly refuses http (webhook endpoints, SPEC 6.1 rule 4)', () => {
    expect(refused('http://example.com/', { httpsOnly: true, purpose: 'webhook' }).message).toBe('webhook URL must use https, not http.');
  });
  test.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'cloud metadata'],
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1', 'loopback'],
    ['http://0x7f.1/', '127.0.0.1', 'loopback'],
    ['http://2130706433/', '127.0.0.1', 'loopback'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254', 'cloud metadata'],
    ['http://[::]/', '::', 'unspecified'],
  ])('refuses the IP-literal URL %s', (url, addr, why) => {
    const e = refused(url);
    expect(e.code).toBe('egress_blocked');
    expect(e.status).toBe(400);
    expect(e.retryable).toBe(false);
    expect(e.address).toBe(addr);
    expect(e.message).toContain(`${why} address; allow it with SVC_EGRESS_ALLOW`);
  });
  test('an allowed IP literal passes', () => {
    expect(checkUrl('http://127.0.0.1:9/', { allow: ['127.0.0.0/8'] }).hostname).toBe('127.0.0.1');
  });
});
