import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkCustomer = async (h: Harness) =>
  (await h.call('POST', '/customers', { email: `c${crypto.randomUUID().slice(0, 8)}@example.com` })).body.id as string;
const mkProduct = async (h: Harness, retail = 10, stock = 1000) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: stock }))).body.id as string;
const fund = (h: Harness, customer_id: string, amount: number, headers?: Record<string, string>) =>
  h.call('POST', '/wallet/funds', { customer_id, amount, reason: 'Goodwill' }, headers);
const balance = async (h: Harness, c: string) => (await h.call('GET', `/wallet/balance?customer_id=${c}`)).body.balance as number;

describe('wallet', () => {
  test('add_funds credits a customer through a double entry; balance and ledger read with commerce scopes only', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const as = { 'x-api-key': await h.newKey(['commerce:read', 'commerce:write']) };
    const made = await fund(h, c, 25.5, as);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      object: 'wallet_transaction',
      type: 'credit',
      amount: 25.5,
      currency: 'USD',
      balance_after: 25.5,
      reason: 'Goodwill',
    });
    // The two entries sum to zero: the customer's account against the store's funding.
    expect(made.body.entries).toEqual([
      { account: `customer:${c}`, amount: 25.5 },
      { account: 'store:funding', amount: -25.5 },
    ]);
    await fund(h, c, 4.5, as);
    expect((await h.call('GET', `/wallet/balance?customer_id=${c}`, undefined, as)).body).toEqual({
      object: 'wallet_balance',
      customer_id: c,
      balance: 30,
      currency: 'USD',
    });
    const list = (await h.call('GET', `/wallet/transactions?customer_id=${c}`, undefined, as)).body.data;
    expect(list.map((t: any) => t.balance_after)).toEqual([30, 25.5]);
    // commerce:read alone cannot add credit; another scope cannot read it.
    expect((await fund(h, c, 1, { 'x-api-key': await h.newKey(['commerce:read']) })).status).toBe(403);
    expect((await h.call('GET', `/wallet/balance?customer_id=${c}`, undefined, { 'x-api-key': await h.newKey(['orders:read']) })).status).toBe(403);
  });

  test("the store's currency is the wallet's; bad amounts are 400; another store's customer is 404", async () => {
    const h = await setup();
    await h.call('PATCH', '/settings', { currency: 'JPY' });
    const c = await mkCustomer(h);
    expect((await fund(h, c, 500)).body).toMatchObject({ amount: 500, currency: 'JPY' });
    const frac = await fund(h, c, 1.5);
    expect(frac.status).toBe(400);
    expect(frac.body.error.param).toBe('amount');
    expect((await fund(h, c, -1)).status).toBe(400);
    const other = await setup();
    const r = await fund(other, c, 1);
    expect(r.status).toBe(404);
    expect(r.body.error.param).toBe('customer_id');
    expect((await other.call('GET', `/wallet/balance?customer_id=${c}`)).status).toBe(404);
  });

  test('add_funds is idempotent: the Idempotency-Key header over REST, the idempotency_key field over MCP', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const key = { 'Idempotency-Key': `k-${crypto.randomUUID()}` };
    const a = await fund(h, c, 10, key);
    const b = await fund(h, c, 10, key);
    expect(b.body.id).toBe(a.body.id);
    expect(await balance(h, c)).toBe(10);
    const { client } = await mcpClient(h);
    const call = async (args: object) => {
      const out: any = await client.callTool({ name: 'wallet', arguments: { action: 'add_funds', customer_id: c, ...args } });
      return { error: out.isError, body: JSON.parse(out.content[0].text) };
    };
    const first = await call({ amount: 5, idempotency_key: 'once' });
    const again = await call({ amount: 5, idempotency_key: 'once' });
    expect(again.body.id).toBe(first.body.id);
    expect(await balance(h, c)).toBe(15);
    // The same key for another amount is refused, not applied.
    const other = await call({ amount: 7, idempotency_key: 'once' });
    expect(other.error).toBe(true);
    expect(JSON.stringify(other.body)).toContain('idempotency_key_reused');
    expect(await balance(h, c)).toBe(15);
    await client.close();
  });

  test('each wallet tool answers one MCP call', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const { client } = await mcpClient(h);
    const call = async (args: Record<string, unknown>) =>
      JSON.parse(((await client.callTool({ name: 'wallet', arguments: args })) as any).content[0].text);
    expect(await call({ action: 'add_funds', customer_id: c, amount: 3 })).toMatchObject({ type: 'credit', amount: 3 });
    expect(await call({ action: 'get_balance', customer_id: c })).toMatchObject({ balance: 3 });
    expect((await call({ action: 'list_transactions', customer_id: c })).data).toHaveLength(1);
    await client.close();
  });

  test('an order spends credit: wallet_amount and amount_due shown; fully covered is created paid; too much is 409 and moves nothing', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const p = await mkProduct(h, 10, 5);
    await fund(h, c, 15);
    const part = await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 4 });
    expect(part.status).toBe(201);
    expect(part.body).toMatchObject({ status: 'pending', total: 10, wallet_amount: 4, amount_due: 6 });
    const full = await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 10 });
    expect(full.body).toMatchObject({ status: 'paid', wallet_amount: 10, amount_due: 0 });
    expect(await balance(h, c)).toBe(1);
    const spent = (await h.call('GET', `/wallet/transactions?customer_id=${c}`)).body.data[0];
    expect(spent).toMatchObject({ type: 'order_payment', amount: -10, order_id: full.body.id, balance_after: 1 });
    expect(spent.entries).toEqual([
      { account: `customer:${c}`, amount: -10 },
      { account: 'store:orders', amount: 10 },
    ]);
    const short = await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 2 });
    expect(short.status).toBe(409);
    expect(short.body.error).toMatchObject({ code: 'insufficient_wallet_balance', param: 'wallet_amount' });
    // Rolled back with the order: stock and balance as before.
    expect((await h.call('GET', `/products/${p}`)).body.stock_quantity).toBe(3);
    expect(await balance(h, c)).toBe(1);
    const over = await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 11 });
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('wallet_amount');
    const nobody = await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 1 });
    expect(nobody.status).toBe(400);
    expect((await h.call('GET', '/orders')).body.data).toHaveLength(2);
  });

  test('a refund gives store credit back first, never more than the wallet paid', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const p = await mkProduct(h, 10);
    await fund(h, c, 6);
    const o = (await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 6, status: 'paid' }))
      .body;
    expect(await balance(h, c)).toBe(0);
    await h.call('POST', `/orders/${o.id}/refunds`, { amount: 4 });
    expect(await balance(h, c)).toBe(4);
    // 6 was paid from the wallet: only 2 more comes back to it, the rest to the card.
    await h.call('POST', `/orders/${o.id}/refunds`, { amount: 5 });
    expect(await balance(h, c)).toBe(6);
    const back = (await h.call('GET', `/wallet/transactions?customer_id=${c}`)).body.data.filter((t: any) => t.type === 'refund_credit');
    expect(back.map((t: any) => t.amount)).toEqual([2, 4]);
    expect(back.every((t: any) => t.order_id === o.id && t.refund_id)).toBe(true);
  });

  test('50 racing orders spending one wallet never overdraw it', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const p = await mkProduct(h, 3, 1000);
    await fund(h, c, 100);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }], wallet_amount: 3 })),
    );
    const ok = results.filter((r) => r.status === 201);
    // 100 / 3: exactly 33 orders fit; every other one is refused whole.
    expect(ok).toHaveLength(33);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'insufficient_wallet_balance')).toBe(true);
    expect(results.filter((r) => r.status !== 201 && r.status !== 409)).toHaveLength(0);
    expect(await balance(h, c)).toBe(1);
    expect((await h.call('GET', `/products/${p}`)).body.stock_quantity).toBe(1000 - 33);
  });
});
