import { describe, expect, test } from 'bun:test';
import { allPlugins as plugins } from '../kit/setup';
import { product, setup } from '../kit/setup';

/** Every string schema with a pattern under `node`, with its path. */
function patterns(node: any, path: string[] = []): { path: string; schema: any }[] {
  if (!node || typeof node !== 'object') return [];
  const here = typeof node.pattern === 'string' && node.type === 'string' ? [{ path: path.join('.'), schema: node }] : [];
  return [...here, ...Object.entries(node).flatMap(([k, v]) => patterns(v, [...path, k]))];
}

const noRegex = (message: string) => {
  expect(message).not.toMatch(/\^|\$|\\d|\[0-9|expected union value/i);
};

describe('validation messages say what a value must be, never a regular expression', () => {
  test('every pattern in an action input says what it means (errorMessage)', () => {
    const missing = plugins.flatMap((p) =>
      Object.entries(p.actions).flatMap(([name, a]) =>
        patterns(a.input)
          .filter(({ schema }) => typeof schema.errorMessage !== 'string')
          .map(({ path }) => `${p.name}.${name}: ${path}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  test('an order status outside the lifecycle lists the allowed values', async () => {
    const h = await setup();
    const r = await h.call('GET', '/orders?status=shipped');
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('status');
    expect(r.body.error.message).toBe(
      'Invalid status: must be one of: pending, paid, fulfilled, completed, cancelled, or several of them separated by commas.',
    );
  });

  test('a malformed customer email says it must be an email address', async () => {
    const h = await setup();
    const r = await h.call('POST', '/customers', { email: 'not-an-address' });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('email');
    expect(r.body.error.message).toBe('Invalid email: must be an email address.');
  });

  test('a malformed `from` on tool-executions says it must be an ISO 8601 timestamp', async () => {
    const h = await setup();
    const r = await h.call('GET', '/tool-executions?from=yesterday');
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('from');
    expect(r.body.error.message).toBe('Invalid from: must be an ISO 8601 timestamp.');
  });

  test('a malformed id in the body or query says it must be a UUID, in the original case', async () => {
    const h = await setup();
    const body = await h.call('POST', '/orders', { line_items: [{ product_id: 'ABC', quantity: 1 }] });
    expect(body.status).toBe(400);
    expect(body.body.error.param).toBe('line_items.0.product_id');
    expect(body.body.error.message).toBe('Invalid line_items.0.product_id: must be a UUID.');
    const query = await h.call('GET', '/products?starting_after=Nope');
    expect(query.body.error.message).toBe('Invalid starting_after: must be a UUID.');
  });

  test('lengths, numbers, nullable fields and missing fields read naturally', async () => {
    const h = await setup();
    const long = await h.call('POST', '/products', product({ name: 'x'.repeat(501) }));
    expect(long.body.error.message).toBe('Invalid name: must be at most 500 characters long.');
    const empty = await h.call('POST', '/products', product({ name: '' }));
    expect(empty.body.error.message).toBe('Invalid name: must not be empty.');
    const negative = await h.call('POST', '/products', product({ stock_quantity: -1 }));
    expect(negative.body.error.message).toBe('Invalid stock_quantity: must be at least 0.');
    const fraction = await h.call('POST', '/products', product({ stock_quantity: 1.5 }));
    expect(fraction.body.error.message).toBe('Invalid stock_quantity: must be an integer.');
    const missing = await h.call('POST', '/products', { sku: 'X' });
    expect(missing.body.error).toMatchObject({ param: 'name', message: 'Missing required parameter: name.' });
    const p = await h.call('POST', '/products', product());
    const nullable = await h.call('PATCH', `/products/${p.body.id}`, { sku: 42 });
    expect(nullable.body.error.message).toBe('Invalid sku: must be a string (or null).');
    for (const r of [long, empty, negative, fraction, missing, nullable]) noRegex(r.body.error.message);
  });

  test('tools called by agents and MCP clients get the same words', async () => {
    const { callTool } = await import('../../core/tools/call');
    const h = await setup();
    const [principal] = (await h.db.query('SELECT id, scopes FROM api_keys WHERE store_id = $1', [h.store.id])).map((k: any) => ({
      kind: 'api_key' as const,
      keyId: k.id,
      storeId: h.store.id,
      scopes: k.scopes,
      livemode: false,
    }));
    const orders = plugins.find((p) => p.name === 'orders')!;
    const out = await callTool(
      { db: h.db, clock: h.clock, registry: h.registry, principal, store: { id: h.store.id, name: h.store.name, plan: 'pro' }, source: 'mcp' },
      { kind: 'builtin', plugin: orders, actionName: 'get_order', input: { id: 'abc' } },
    );
    expect(out.kind).toBe('error');
    if (out.kind === 'error') expect(out.error.message).toBe('Invalid id: must be a UUID.');
  });
});
