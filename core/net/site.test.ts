import { describe, expect, test } from 'bun:test';
import { ConfigError } from '../config';
import { clientIpOf, readSite, requestOrigin } from './site';

const req = (headers: Record<string, string> = {}, url = 'http://svc.test/x') => new Request(url, { headers });

describe('the client address (core/net/site.ts)', () => {
  const site = readSite({ SVC_TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::/32, 192.0.2.1' });

  test('a peer that is not a trusted proxy is the client, whatever X-Forwarded-For says', () => {
    expect(clientIpOf(site, req({ 'x-forwarded-for': '1.2.3.4' }), '203.0.113.9')).toBe('203.0.113.9');
    expect(clientIpOf(readSite({}), req({ 'x-forwarded-for': '1.2.3.4' }), '::ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  test('behind trusted proxies: the rightmost entry that is not one of them; what the client wrote to its left is ignored', () => {
    expect(clientIpOf(site, req({ 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.1.2.3' }), '10.0.0.1')).toBe('198.51.100.7');
    expect(clientIpOf(site, req({ 'x-forwarded-for': '6.6.6.6, 2001:db8::5, 198.51.100.7, 192.0.2.1' }), '2001:db8::1')).toBe('198.51.100.7');
    // Every hop a proxy of ours: the leftmost is the nearest to the client; none at all, the peer.
    expect(clientIpOf(site, req({ 'x-forwarded-for': '10.9.9.9, 10.1.1.1' }), '10.0.0.1')).toBe('10.9.9.9');
    expect(clientIpOf(site, req(), '10.0.0.1')).toBe('10.0.0.1');
    // A hop that is not an address: the last one vouched for is the peer.
    expect(clientIpOf(site, req({ 'x-forwarded-for': '1.2.3.4, unknown' }), '10.0.0.1')).toBe('10.0.0.1');
  });

  test('SVC_TRUST_PROXY=true: the peer is a proxy whatever its address (no peer known: the same rule)', () => {
    const trusting = readSite({ SVC_TRUST_PROXY: 'true' });
    expect(clientIpOf(trusting, req({ 'x-forwarded-for': '6.6.6.6, 198.51.100.7' }), undefined)).toBe('198.51.100.7');
    expect(clientIpOf(trusting, req(), undefined)).toBeUndefined();
  });

  test('a bad setting stops boot naming the variable', () => {
    expect(() => readSite({ SVC_TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal' })).toThrow(ConfigError);
    expect(() => readSite({ SVC_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/SVC_TRUSTED_PROXIES: '10.0.0.0\/33'/);
    expect(() => readSite({ SVC_PUBLIC_URL: 'svc.example.com' })).toThrow(/SVC_PUBLIC_URL/);
    expect(() => readSite({ SVC_SIGNED_URL_TTL_S: '0' })).toThrow(/SVC_SIGNED_URL_TTL_S/);
    expect(readSite({}).signedUrlTtlS).toBe(900);
  });
});

describe('the origin', () => {
  test('SVC_PUBLIC_URL wins (without its trailing slash); else the scheme and Host of the request', () => {
    expect(requestOrigin(readSite({ SVC_PUBLIC_URL: 'https://svc.example.com/' }), req())).toBe('https://svc.example.com');
    expect(requestOrigin(readSite({}), req({ host: 'shop.example.com:8080' }))).toBe('http://shop.example.com:8080');
  });

  test('X-Forwarded-Proto is believed only from a trusted proxy', () => {
    const https = { 'x-forwarded-proto': 'https' };
    expect(requestOrigin(readSite({}), req(https), '203.0.113.9')).toBe('http://svc.test');
    expect(requestOrigin(readSite({ SVC_TRUSTED_PROXIES: '10.0.0.1' }), req(https), '10.0.0.1')).toBe('https://svc.test');
  });
});
