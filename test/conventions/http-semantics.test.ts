import { describe, expect, test } from 'bun:test';
import { product, setup } from '../helpers';

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
