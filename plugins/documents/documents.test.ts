import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { events, fakeServer, openai } from '../../test/kit/fake-models';
import { mkProduct, placeOrder } from '../../test/kit/orders';
import { setup, type Harness } from '../../test/kit/setup';
import { browserTest, CHROMIUM } from '../../test/kit/browser';
import { stopBrowser } from '../browser/chromium';

/** documents: drawn sheets (invoices' PDF code) and custom HTML printed by Chromium (issue 47). */
beforeAll(() => sharedDb(), 60_000);
afterAll(() => stopBrowser());
const allow = process.env.SVC_EGRESS_ALLOW;
afterEach(() => {
  if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = allow;
});

/** The PDF's text as poppler's pdftotext reads it (layout kept). */
function pdfText(bytes: ArrayBuffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'document-'));
  writeFileSync(join(dir, 'd.pdf'), Buffer.from(bytes));
  const out = Bun.spawnSync(['pdftotext', '-layout', join(dir, 'd.pdf'), '-']);
  if (out.exitCode !== 0) throw new Error(`pdftotext: ${out.stderr.toString()}`);
  return out.stdout.toString();
}

/** The document's PDF, fetched at its signed URL with no credential. */
async function pdfOf(h: Harness, doc: { url: string }) {
  const res = await h.app.handle(new Request(doc.url));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  return res.arrayBuffer();
}

async function order(h: Harness) {
  await h.call('PATCH', '/settings', { name: 'Acme Tools' });
  const p = await mkProduct(h, { name: 'Claw Hammer', sku: `HAM-${crypto.randomUUID().slice(0, 6)}`, pricing_data: { retail: 12.5 } });
  return placeOrder(h, {
    line_items: [{ product_id: p.id, quantity: 3 }],
    shipping_address: { name: 'Grace Hopper', line1: 'Ship Street 1', city: 'Arlington', postal_code: '22201', country: 'US' },
    billing_address: { name: 'Billing Dept', line1: 'Money Road 9', city: 'Boston', postal_code: '02110', country: 'US' },
  });
}

test("an order's invoice, quote and packing slip: drawn PDFs kept as private media, listed and read with fresh signed links", async () => {
  const h = await setup();
  const o = await order(h);
  const key = { 'x-api-key': await h.newKey(['documents:write']) };
  const inv = await h.call('POST', '/documents', { template: 'invoice', order_id: o.id }, key);
  expect(inv.status).toBe(201);
  expect(inv.body).toMatchObject({ object: 'document', template: 'invoice', number: 'INV-000001', order_id: o.id, content_type: 'application/pdf' });
  // The order's one invoice was made, and a second invoice document reuses it.
  expect((await h.call('GET', `/invoices?order_id=${o.id}`)).body.data).toHaveLength(1);
  expect((await h.call('POST', '/documents', { template: 'invoice', order_id: o.id }, key)).body.number).toBe('INV-000001');
  const text = pdfText(await pdfOf(h, inv.body));
  expect(text).toContain('INVOICE');
  expect(text).toMatch(/Claw Hammer.*3\s+12\.50 USD\s+37\.50 USD/);

  const quote = await h.call('POST', '/documents', { template: 'quote', order_id: o.id }, key);
  expect(quote.body.number).toBe(`Q-${o.order_number}`);
  const q = pdfText(await pdfOf(h, quote.body));
  expect(q).toContain('QUOTE');
  expect(q).toContain('Prepared for');
  expect(q).not.toContain('Amount due');

  const slip = await h.call('POST', '/documents', { template: 'packing_slip', order_id: o.id }, key);
  const s = pdfText(await pdfOf(h, slip.body));
  expect(s).toContain('PACKING SLIP');
  expect(s).toContain('Ship Street 1');
  expect(s).not.toContain('Money Road');
  expect(s).not.toContain('12.50');

  // The PDF is a private media asset: its URL without the signature is 403.
  const media = (await h.call('GET', `/media/${slip.body.media_id}`)).body;
  expect(media.visibility).toBe('private');
  expect((await h.app.handle(new Request(slip.body.url.split('?')[0]))).status).toBe(403);

  const readKey = { 'x-api-key': await h.newKey(['documents:read']) };
  const list = await h.call('GET', `/documents?order_id=${o.id}`, undefined, readKey);
  expect(list.body.data.map((d: { template: string }) => d.template)).toEqual(['packing_slip', 'quote', 'invoice', 'invoice']);
  const got = await h.call('GET', `/documents/${quote.body.id}?expires_in=60`, undefined, readKey);
  expect(Date.parse(got.body.url_expires_at) - h.clock.now().getTime()).toBe(60_000);
  expect(pdfText(await pdfOf(h, got.body))).toContain('QUOTE');
  expect((await h.call('POST', '/documents', { template: 'quote', order_id: o.id }, readKey)).status).toBe(403);
});

test('a quote of your data: exact totals, fields checked; another store’s order or document is 404', async () => {
  const h = await setup();
  const r = await h.call('POST', '/documents', {
    template: 'quote',
    data: {
      number: 'Q-77',
      customer: { name: 'Ada Lovelace' },
      currency: 'EUR',
      lines: [{ description: 'Linen apron', quantity: 3, unit_price: 0.1 }],
      due_date: '2027-01-31',
    },
  });
  expect(r.status).toBe(201);
  const t = pdfText(await pdfOf(h, r.body));
  expect(t).toMatch(/Total\s+0\.30 EUR/);
  expect(t).toContain('Valid until: 2027-01-31');
  expect(t).toContain('Ada Lovelace');
  const bad = await h.call('POST', '/documents', { template: 'quote', data: { lines: [{ description: 'x', quantity: 0, unit_price: 1 }] } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('data.lines.0.quantity');
  expect((await h.call('POST', '/documents', { template: 'quote', data: { lines: [{ description: 'x', quantity: 1 }] } })).body.error.param).toBe(
    'data.lines.0.unit_price',
  );
  expect((await h.call('POST', '/documents', { template: 'invoice' })).body.error.param).toBe('order_id');
  expect((await h.call('POST', '/documents', { template: 'quote', data: { lines: [] }, html: '<p>' })).body.error.param).toBe('html');

  const theirs = await setup();
  const o = await order(theirs);
  const r404 = await h.call('POST', '/documents', { template: 'packing_slip', order_id: o.id });
  expect(r404.status).toBe(404);
  expect(r404.body.error.param).toBe('order_id');
  expect((await theirs.call('GET', `/documents/${r.body.id}`)).status).toBe(404);
});

test('custom without SVC_CHROMIUM_PATH is 400 provider_not_configured naming it, after the order is found; nothing is kept', async () => {
  const h = await setup({ env: {} });
  const o = await order(h);
  const other = await setup();
  const missing = await h.call('POST', '/documents', { template: 'custom', html: '<p>x</p>', order_id: (await order(other)).id });
  expect(missing.status).toBe(404);
  const r = await h.call('POST', '/documents', { template: 'custom', html: '<p>{{order.order_number}}</p>', order_id: o.id });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('provider_not_configured');
  expect(r.body.error.message).toContain('SVC_CHROMIUM_PATH');
  expect((await h.call('GET', '/documents')).body.data).toEqual([]);
  expect((await h.call('GET', '/media')).body.data).toEqual([]);
});

browserTest('custom: Handlebars HTML with data printed by Chromium; its images load through the egress guard, scripts never run', async () => {
  const hits: string[] = [];
  const site = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      hits.push(new URL(req.url).pathname);
      return new Response('missing', { status: 404 });
    },
  });
  try {
    const h = await setup({ env: { SVC_CHROMIUM_PATH: CHROMIUM } });
    const o = await order(h);
    const html = `<html><body><h1>Certificate for {{name}}</h1><p>Order {{order.order_number}} from {{store.name}}</p>
      <p>{{motto}}</p><img src="http://127.0.0.1:${site.port}/logo.png">
      <script>fetch('http://127.0.0.1:${site.port}/script'); document.body.append('SCRIPT RAN')</script></body></html>`;
    const r = await h.call('POST', '/documents', {
      template: 'custom',
      html,
      order_id: o.id,
      data: { name: 'Ada', motto: '<b>escaped</b>' },
      filename: 'certificate',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ template: 'custom', number: null, filename: 'certificate.pdf' });
    const t = pdfText(await pdfOf(h, r.body));
    expect(t).toContain('Certificate for Ada');
    expect(t).toContain(`Order ${o.order_number} from Acme Tools`);
    expect(t).toContain('<b>escaped</b>');
    expect(t).not.toContain('SCRIPT RAN');
    // Loopback is closed to stores: the logo was refused before any request left svc.
    expect(hits).toEqual([]);
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    expect((await h.call('POST', '/documents', { template: 'custom', html })).status).toBe(201);
    expect(hits).toEqual(['/logo.png']);

    const broken = await h.call('POST', '/documents', { template: 'custom', html: '<p>{{#if}}</p>' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.param).toBe('html');

    // Over MCP too.
    const { client } = await mcpClient(h);
    const m: any = await client.callTool({
      name: 'documents_generate_document',
      arguments: { template: 'custom', html: '<p>Hello {{who}}</p>', data: { who: 'MCP' } },
    });
    expect(m.isError).toBeFalsy();
    expect(pdfText(await pdfOf(h, JSON.parse(m.content[0].text)))).toContain('Hello MCP');
    await client.close();
  } finally {
    site.stop(true);
  }
});

test("through agent chat: the model asks documents for an order's invoice and gets its PDF", async () => {
  const h = await setup();
  const o = await order(h);
  const model = fakeServer([
    openai.tools({ name: 'documents', input: { action: 'generate_document', template: 'invoice', order_id: o.id } }),
    openai.text('Here is the invoice.'),
  ]);
  try {
    // The same store through a server whose agents talk to the fake model.
    const app = h.elsewhere({ OPENAI_BASE_URL: `${model.url}/v1` });
    const everything = await h.newKey([...h.registry.grantable]);
    const agent = (await app.call('POST', '/agents', { name: 'Clerk', model: 'openai/gpt-test', tools: ['documents'] })).body;
    const chat = await app.call('POST', `/agents/${agent.id}/chat`, { message: 'Invoice that order' }, { 'x-api-key': everything });
    expect(chat.status).toBe(200);
    const result: any = events(chat.body).find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({
      status: 'success',
      result: { object: 'document', template: 'invoice', number: 'INV-000001', order_id: o.id, content_type: 'application/pdf' },
    });
    expect(pdfText(await pdfOf(h, result.result))).toMatch(/Claw Hammer.*3\s+12\.50 USD\s+37\.50 USD/);
  } finally {
    model.stop();
  }
});
