import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backend } from '../../test/kit/db';
import { runJobs, startRelay } from '../../test/kit/email';
import { mcpClient } from '../../test/kit/mcp';
import { mkProduct, placeOrder } from '../../test/kit/orders';
import { setup, type Harness } from '../../test/kit/setup';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops) await s();
});

/** The PDF's text as poppler's pdftotext reads it (layout kept, so a line's columns stay on one line). */
function pdfText(bytes: ArrayBuffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'invoice-'));
  writeFileSync(join(dir, 'i.pdf'), Buffer.from(bytes));
  const out = Bun.spawnSync(['pdftotext', '-layout', join(dir, 'i.pdf'), '-']);
  if (out.exitCode !== 0) throw new Error(`pdftotext: ${out.stderr.toString()}`);
  return out.stdout.toString();
}

async function customer(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/customers', {
    email: `c${crypto.randomUUID().slice(0, 8)}@example.com`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    ...over,
  });
  expect(r.status).toBe(201);
  return r.body as { id: string; email: string };
}

/** A paid order of two products with a 10% coupon and a 20% tax rate, shipped to Berlin. */
async function taxedOrder(h: Harness) {
  await h.call('PATCH', '/settings', { name: 'Acme Tools', address: { line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' } });
  await h.call('POST', '/tax/rates', { name: 'DE VAT', country: 'DE', percentage: 20 });
  await h.call('POST', '/coupons', { code: 'TENOFF', percent_off: 10 });
  const a = await mkProduct(h, { name: 'Claw Hammer', pricing_data: { retail: 12.5 } });
  const b = await mkProduct(h, { name: 'Chisel Set', pricing_data: { retail: 30 } });
  const c = await customer(h);
  return placeOrder(h, {
    customer_id: c.id,
    status: 'paid',
    line_items: [
      { product_id: a.id, quantity: 2 },
      { product_id: b.id, quantity: 1 },
    ],
    discount_codes: ['TENOFF'],
    shipping_address: { name: 'Ada Lovelace', line1: 'Unter den Linden 5', city: 'Berlin', postal_code: '10117', country: 'DE' },
  });
}

test('an invoice of an order copies its lines, discounts and tax; a second is 409 invoice_exists; the PDF shows them', async () => {
  const h = await setup();
  const order = await taxedOrder(h);
  const r = await h.call('POST', '/invoices', { order_id: order.id });
  expect(r.status).toBe(201);
  const inv = r.body;
  expect(inv).toMatchObject({
    number: 'INV-000001',
    status: 'paid', // the order was paid: the invoice is its receipt
    order_id: order.id,
    currency: order.currency,
    subtotal: 55,
    discounts: [{ code: 'TENOFF', amount: 5.5 }],
    tax_lines: [{ name: 'DE VAT', percentage: 20, amount: order.tax_total }],
    total: order.total,
    amount_due: 0,
    bill_to: { name: 'Ada Lovelace', address: { city: 'Berlin', postal_code: '10117' } },
  });
  expect(inv.lines).toEqual([
    { description: expect.stringContaining('Claw Hammer'), quantity: 2, unit_price: 12.5, amount: 25 },
    { description: expect.stringContaining('Chisel Set'), quantity: 1, unit_price: 30, amount: 30 },
  ]);
  const again = await h.call('POST', '/invoices', { order_id: order.id });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: 'invoice_exists', param: 'order_id' });

  const pdf = await h.app.handle(new Request(`http://svc.test/v1/stores/${h.store.id}/invoices/${inv.id}/pdf`, { headers: { 'x-api-key': h.key } }));
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  const bytes = await pdf.arrayBuffer();
  expect(bytes.byteLength).toBeLessThan(512 * 1024);
  const text = pdfText(bytes);
  for (const s of ['Acme Tools', 'Hauptstr. 1', 'INV-000001', 'Ada Lovelace', 'Unter den Linden 5', 'Discount TENOFF', 'DE VAT 20%'])
    expect(text).toContain(s);
  expect(text).toMatch(/Claw Hammer.*\s2\s+12\.50 \w{3}\s+25\.00 \w{3}/);
  expect(text).toMatch(/Chisel Set.*\s1\s+30\.00 \w{3}\s+30\.00 \w{3}/);
  expect(text).toMatch(new RegExp(`Total\\s+${order.total.toFixed(2)} ${order.currency}`));
  expect(text).toMatch(/Amount due\s+0\.00/);
});

test('free lines for a customer make an open invoice; mark_paid sets paid_at once and answers it again', async () => {
  const h = await setup();
  await h.call('PATCH', '/settings', { invoice_prefix: 'ACME-' });
  const c = await customer(h);
  const r = await h.call('POST', '/invoices', { customer_id: c.id, lines: [{ description: 'Workshop', quantity: 3, unit_price: 19.99 }] });
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ number: 'ACME-000001', status: 'open', subtotal: 59.97, total: 59.97, amount_due: 59.97, paid_at: null });
  expect(r.body.bill_to).toMatchObject({ name: 'Ada Lovelace', email: c.email });
  const paid = await h.call('POST', `/invoices/${r.body.id}/mark_paid`, {});
  expect(paid.body).toMatchObject({ status: 'paid', amount_due: 0 });
  expect(paid.body.paid_at).toBe(h.clock.now().toISOString());
  h.clock.advance(60_000);
  const twice = await h.call('POST', `/invoices/${r.body.id}/mark_paid`, {});
  expect(twice.status).toBe(200);
  expect(twice.body.paid_at).toBe(paid.body.paid_at);
  expect((await h.call('GET', '/invoices?status=open')).body.data).toEqual([]);
  expect((await h.call('GET', '/invoices?status=paid')).body.data.map((i: any) => i.id)).toEqual([r.body.id]);
});

test("bad requests: no customer for free lines, another store's order or customer is 404, a cancelled order is 409", async () => {
  const h = await setup();
  const theirs = await setup();
  const line = [{ description: 'X', quantity: 1, unit_price: 1 }];
  const none = await h.call('POST', '/invoices', { lines: line });
  expect(none.status).toBe(400);
  expect(none.body.error.param).toBe('customer_id');
  const foreignCustomer = await customer(theirs);
  const fc = await h.call('POST', '/invoices', { customer_id: foreignCustomer.id, lines: line });
  expect(fc.status).toBe(404);
  expect(fc.body.error.param).toBe('customer_id');
  const p = await mkProduct(theirs);
  const foreignOrder = await placeOrder(theirs, { line_items: [{ product_id: p.id, quantity: 1 }] });
  const fo = await h.call('POST', '/invoices', { order_id: foreignOrder.id });
  expect(fo.status).toBe(404);
  expect(fo.body.error.param).toBe('order_id');
  const mine = await placeOrder(h, { line_items: [{ product_id: (await mkProduct(h)).id, quantity: 1 }] });
  await h.call('POST', `/orders/${mine.id}/cancel`, {});
  const cancelled = await h.call('POST', '/invoices', { order_id: mine.id });
  expect(cancelled.status).toBe(409);
  // Nothing numbered was spent on the refusals: the next invoice is 000001.
  expect((await h.call('POST', '/invoices', { customer_id: (await customer(h)).id, lines: line })).body.number).toBe('INV-000001');
});

test('send without SMTP_URL is 400 provider_not_configured naming it; with a relay the mail carries the PDF', async () => {
  const bare = await setup();
  const c0 = await customer(bare);
  const i0 = (await bare.call('POST', '/invoices', { customer_id: c0.id, lines: [{ description: 'X', quantity: 1, unit_price: 5 }] })).body;
  const refused = await bare.call('POST', `/invoices/${i0.id}/send`, {});
  expect(refused.status).toBe(400);
  expect(refused.body.error.code).toBe('provider_not_configured');
  expect(refused.body.error.message).toContain('SMTP_URL');

  const relay = await startRelay();
  stops.push(relay.stop);
  const h = await setup({ env: { SMTP_URL: relay.url, SVC_EMAIL_FROM: 'billing@svc.test' } });
  const c = await customer(h);
  const inv = (await h.call('POST', '/invoices', { customer_id: c.id, lines: [{ description: 'Repair', quantity: 1, unit_price: 42 }] })).body;
  const sent = await h.call('POST', `/invoices/${inv.id}/send`, {});
  expect(sent.status).toBe(200);
  expect(sent.body.sent_at).toBe(h.clock.now().toISOString());
  expect(await runJobs(h)).toBe(1);
  expect(relay.received).toHaveLength(1);
  expect(relay.received[0].to).toEqual([c.email]);
  const raw = relay.received[0].raw;
  expect(raw).toContain('Subject: Invoice INV-000001');
  expect(raw).toMatch(/Content-Type: application\/pdf; name=INV-000001\.pdf/);
});

test('an MCP client gets the PDF as a signed link that serves it without a credential', async () => {
  const h = await setup();
  const c = await customer(h);
  const inv = (await h.call('POST', '/invoices', { customer_id: c.id, lines: [{ description: 'Tool rental', quantity: 2, unit_price: 7.25 }] })).body;
  const { client } = await mcpClient(h, { query: '?tools=flat' });
  try {
    const made: any = await client.callTool({
      name: 'invoices_create_invoice',
      arguments: { customer_id: c.id, lines: [{ description: 'Y', quantity: 1, unit_price: 1 }] },
    });
    expect(made.isError).toBeFalsy();
    expect(made.structuredContent.number).toBe('INV-000002');
    const out: any = await client.callTool({ name: 'invoices_get_invoice_pdf', arguments: { id: inv.id } });
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent).toMatchObject({ object: 'signed_link', content_type: 'application/pdf' });
    const res = await h.app.handle(new Request(out.structuredContent.url));
    expect(res.status).toBe(200);
    const text = pdfText(await res.arrayBuffer());
    expect(text).toContain('INV-000001');
    expect(text).toMatch(/Tool rental.*14\.50/);
  } finally {
    await client.close();
  }
});

test.skipIf(backend !== 'postgres')(
  'on PostgreSQL (skipped on the embedded database: it runs one transaction at a time): 50 parallel creations are numbered 1..50, no gap, no repeat',
  async () => {
    const h = await setup();
    const c = await customer(h);
    const made = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        h.call('POST', '/invoices', { customer_id: c.id, lines: [{ description: `Item ${n}`, quantity: 1, unit_price: 1 }] }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = made.map((r) => r.body.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, n) => `INV-${String(n + 1).padStart(6, '0')}`));
  },
);
