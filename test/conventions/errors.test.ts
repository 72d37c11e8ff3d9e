import { describe, expect, spyOn, test } from 'bun:test';
import fixture from '../fixtures/fixture-plugin';
import { setup } from '../kit/setup';

describe('error envelope', () => {
  test('every response carries X-Request-Id, and errors repeat it as request_id', async () => {
    const h = await setup();
    const ok = await h.call('GET', '/products');
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    const bad = await h.call('GET', `/products/${crypto.randomUUID()}`);
    expect(bad.body).toEqual({
      error: {
        type: 'not_found_error',
        message: expect.any(String),
        code: 'resource_missing',
        param: 'id',
        request_id: bad.headers.get('x-request-id'),
      },
    });
  });

  test('an unknown path is 404 resource_missing with the usual headers', async () => {
    const h = await setup();
    for (const path of ['/v1/nothing-here', `${h.base}/prodcuts`]) {
      const r = await h.raw('GET', path);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('resource_missing');
      expect(r.headers.get('x-api-version')).toBe('v2026-03-07');
      expect(r.body.error.request_id).toBe(r.headers.get('x-request-id')!);
    }
  });

  test('malformed JSON is a 400 validation_failed', async () => {
    const h = await setup();
    const r = await h.call('POST', '/products', '{"name": "x",');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed' });
  });

  test('missing fields, wrong types and negative prices name the offending param', async () => {
    const h = await setup();
    const cases: [unknown, string][] = [
      [{ sku: 'A' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: 'x', pricing_data: { retail: -1 } }, 'pricing_data.retail'],
      [{ name: 'x', pricing_data: { retail: '10' } }, 'pricing_data.retail'],
      [{ name: 'x', colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const r = await h.call('POST', '/products', body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.param).toBe(param);
    }
  });

  test('an unexpected failure is a 500 api_error with no SQL or stack, and leaves no partial write', async () => {
    const h = await setup({ extra: [fixture] });
    const lines: string[] = [];
    const spy = spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown) => (lines.push(String(chunk)), true)) as any);
    try {
      const r = await h.call('POST', '/fixture/crash', { name: 'half-written' });
      expect(r.status).toBe(500);
      expect(r.body.error).toMatchObject({ type: 'api_error', code: 'internal_error', param: null });
      const text = JSON.stringify(r.body);
      expect(text).not.toContain('table_that_does_not_exist');
      expect(text).not.toContain('at ');
      // The operator gets the cause: one structured line carrying the request id, no stack dump.
      const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.request_id === r.body.error.request_id);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ level: 'error', msg: 'unexpected error', error: expect.stringContaining('table_that_does_not_exist') });
    } finally {
      spy.mockRestore();
    }
    // Without an Idempotency-Key the handler ran outside a transaction: the first insert stays.
    // With one, the whole request is one transaction (see the idempotency tests).
  });
});
