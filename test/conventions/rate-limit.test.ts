import { describe, expect, test } from 'bun:test';
import { createApp } from '../../core/http/app';
import { makeServices } from '../../core/http/services';
import { NO_LIMITS, setup } from '../kit/setup';

const limits = (perMinute: number, burst: number) => ({ ...NO_LIMITS, pro: { perMinute, burst } });

describe('rate limits', () => {
  test('past the per-minute limit: 429 rate_limit_exceeded with Retry-After and X-RateLimit headers', async () => {
    const h = await setup({ limits: limits(10, 100), now: '2026-04-01T00:00:10Z' });
    for (let i = 0; i < 10; i++) {
      const r = await h.call('GET', '/products');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
    }
    const r = await h.call('GET', '/products');
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(r.headers.get('retry-after')).toBe('50');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-04-01T00:01:00Z') / 1000));
    h.clock.set('2026-04-01T00:01:00Z');
    expect((await h.call('GET', '/products')).status).toBe(200);
  });

  test('the burst limit caps requests within one second', async () => {
    const h = await setup({ limits: limits(1000, 3) });
    for (let i = 0; i < 3; i++) expect((await h.call('GET', '/products')).status).toBe(200);
    const r = await h.call('GET', '/products');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    h.clock.advance(1000);
    expect((await h.call('GET', '/products')).status).toBe(200);
  });

  test('the limit holds across several API processes sharing one database', async () => {
    const h = await setup({ limits: limits(20, 1000) });
    // A second, independent server (its own key cache and counters) over the same database.
    const other = createApp(makeServices({ db: h.db, clock: h.clock, registry: h.registry, limits: limits(20, 1000) }));
    const viaOther = async () => (await other.handle(new Request(`http://svc.test${h.base}/products`, { headers: { 'x-api-key': h.key } }))).status;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(i % 2 ? await viaOther() : (await h.call('GET', '/products')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  test('limits are per store', async () => {
    const a = await setup({ limits: limits(2, 100) });
    const b = await setup({ limits: limits(2, 100) });
    await a.call('GET', '/products');
    await a.call('GET', '/products');
    expect((await a.call('GET', '/products')).status).toBe(429);
    expect((await b.call('GET', '/products')).status).toBe(200);
  });
});
