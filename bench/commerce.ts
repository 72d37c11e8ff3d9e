/**
 * The commerce figure's setup: two products with stock enough for any run, a wholesale customer
 * with a group price on one of them, a 10% coupon and a California tax rate. Answers two order
 * bodies of the same lines: a plain one, and one that takes the coupon, the tax and the wholesale
 * price (through svc's own REST API, as a shop would set them up).
 */
export async function commerceOrders(base: string, storePath: string, auth: Record<string, string>) {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${storePath}${path}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { id: string };
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
  const tag = Date.now().toString(36);
  const product = (n: number) =>
    call('/products', { name: `Order bench ${n}`, sku: `OB-${tag}-${n}`, pricing_data: { retail: 20 + n }, stock_quantity: 2_000_000_000 });
  const [a, b] = [await product(1), await product(2)];
  const customer = await call('/customers', { email: `wholesale-${tag}@example.com`, tags: ['wholesale'] });
  await call('/wholesale/pricing', {
    customer_group: 'wholesale',
    prices: [{ product_id: a.id, price: 15, quantity_breaks: [{ min_quantity: 2, price: 14 }] }],
  });
  await call('/coupons', { code: `BENCH${tag}`.toUpperCase(), percent_off: 10 });
  await call('/tax/rates', { name: 'CA sales tax', country: 'US', region: 'CA', percentage: 7.25 });
  const line_items = [
    { product_id: a.id, quantity: 2 },
    { product_id: b.id, quantity: 1 },
  ];
  return {
    plain: JSON.stringify({ line_items }),
    commerce: JSON.stringify({
      line_items,
      customer_id: customer.id,
      discount_codes: [`BENCH${tag}`.toUpperCase()],
      shipping_address: { line1: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94105', country: 'US' },
    }),
  };
}
