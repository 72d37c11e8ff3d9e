import { describe, expect, test } from 'bun:test';
import { product, setup } from '../kit/setup';

/** The raw answer, text and all, for byte comparisons. */
async function rawCall(h: Awaited<ReturnType<typeof setup>>, method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await h.app.handle(
    new Request(`http://svc.test${path}`, {
      method,
      headers: { 'x-api-key': h.key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body,
    }),
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('HTTP semantics', () => {
  test('an idempotent replay returns the same bytes as the first answer', async () => {
    const h = await setup();
    const body = JSON.stringify(product({ description: 'A mug', pricing_data: { retail: 12.5, compare_at: 15 } }));
    const first = await rawCall(h, 'POST', `${h.base}/products`, body, { 'idempotency-key': 'bytes-1' });
    const again = await rawCall(h, 'POST', `${h.base}/products`, body, { 'idempotency-key': 'bytes-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('status codes a client or proxy relies on', () => {
  test('a body over the 1 MiB limit is 413 request_too_large with the envelope', async () => {
    const h = await setup();
    const big = JSON.stringify(product({ description: 'x'.repeat(1024 * 1024) }));
    const r = await h.call('POST', '/products', big);
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', param: null });
    expect(r.body.error.request_id).toBe(r.headers.get('x-request-id')!);
    // Counted in bytes, not characters: 600,000 two-byte characters are over the limit too.
    const wide = await h.call('POST', '/products', JSON.stringify(product({ description: 'é'.repeat(600_000) })));
    expect(wide.status).toBe(413);
  });

  test('an unsupported method on a real path is 405 with Allow and the envelope; an unknown path stays 404', async () => {
    const h = await setup();
    const p = await h.call('POST', '/products', product());
    const cases: [string, string, string][] = [
      ['PUT', `/products/${p.body.id}`, 'GET, HEAD, PATCH, DELETE'],
      ['DELETE', '/products', 'GET, HEAD, POST'],
      ['GET', `/orders/${crypto.randomUUID()}/cancel`, 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await h.call(method, path);
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.headers.get('allow')).toBe(allow);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed', param: null });
      expect(r.body.error.request_id).toBe(r.headers.get('x-request-id')!);
    }
    const admin = await h.raw('GET', '/v1/stores');
    expect(admin.status).toBe(405);
    expect(admin.headers.get('allow')).toBe('POST');
    expect((await h.call('GET', '/prodcuts')).status).toBe(404);
  });

  test('every response carries X-Request-Id and the version headers: health, docs, OpenAPI and MCP too', async () => {
    const h = await setup();
    const answers = [
      await h.raw('GET', '/health'),
      await h.raw('GET', '/docs'),
      await h.raw('GET', '/docs/swagger-ui.css'),
      await h.raw('GET', '/openapi.json'),
      await h.raw('POST', '/agent/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream' }),
      await h.raw('GET', '/agent/mcp', undefined, { 'x-api-key': 'svc_test_nope' }),
    ];
    for (const r of answers) {
      expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
      expect(r.headers.get('x-api-version')).toBe('v2026-03-07');
      expect(r.headers.get('x-api-latest-version')).toBe('v2026-03-07');
    }
    expect(answers[0].status).toBe(200);
    expect(answers[1].status).toBe(200);
  });
});
