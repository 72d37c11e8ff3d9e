/**
 * The views render in a real browser (headless Chromium) as an MCP Apps host drives them: the view
 * asks `ui/initialize`, the host answers, hands it a tool result, and the view draws it with text
 * nodes only (a name carrying markup stays text). Each view is loaded in an iframe of a small host
 * page, as hosts sandbox them.
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import { chromium, type Browser } from 'playwright-core';
import { browserTest, CHROMIUM } from '../../../test/kit/browser';
import { VIEWS } from './views';

let browser: Browser | undefined;
beforeAll(async () => {
  if (await Bun.file(CHROMIUM).exists()) browser = await chromium.launch({ executablePath: CHROMIUM });
});
afterAll(async () => browser?.close());

/** Loads `html` in a sandboxed iframe, answers its ui/initialize, sends `result`, and reads what it drew. */
async function render(html: string, result: object): Promise<{ text: string; messages: string[] }> {
  const page = await browser!.newPage();
  await page.setContent(`<!doctype html><iframe id="v" sandbox="allow-scripts"></iframe><script>
    window.seen = [];
    window.addEventListener('message', (e) => {
      const m = e.data; window.seen.push(m.method || 'result');
      const frame = document.getElementById('v').contentWindow;
      if (m.method === 'ui/initialize') frame.postMessage({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2026-01-26', hostContext: {} } }, '*');
      if (m.method === 'ui/notifications/initialized') frame.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: ${JSON.stringify(result)} }, '*');
    });
  </script>`);
  await page.$eval('#v', (f, doc) => ((f as HTMLIFrameElement).srcdoc = doc), html);
  await page.waitForFunction(() => (window as any).seen.includes('ui/notifications/size-changed'), undefined, { timeout: 10_000 });
  const text = await page.frameLocator('#v').locator('#app').innerText();
  const messages = await page.evaluate(() => (window as any).seen as string[]);
  await page.close();
  return { text, messages };
}

browserTest('the product card draws name, price, stock and variants, markup in a name staying text', async () => {
  const product = {
    object: 'product',
    name: '<b>Mug</b>',
    description: 'Stoneware.',
    pricing_data: { retail: 12.5, currency: 'USD' },
    stock_status: 'in_stock',
    variants: [{ options: { colour: 'blue' }, price: 12.5 }],
  };
  const { text, messages } = await render(VIEWS.product.html, { structuredContent: product });
  expect(messages.slice(0, 2)).toEqual(['ui/initialize', 'ui/notifications/initialized']);
  expect(text).toContain('<b>Mug</b>');
  expect(text).toContain('$12.50');
  expect(text).toContain('In stock');
  expect(text).toContain('blue');
});

browserTest('the order view and the cart summary draw their totals', async () => {
  const order = {
    object: 'order',
    order_number: '1001',
    status: 'pending',
    channel: 'ucp',
    agent: { name: 'agent.example' },
    currency: 'USD',
    line_items: [{ quantity: 2, name: 'Mug', total: 25 }],
    subtotal: 25,
    discount_total: 0,
    shipping_total: 5,
    tax_total: 0,
    total: 30,
  };
  const o = await render(VIEWS.order.html, { structuredContent: order });
  expect(o.text).toContain('Order 1001');
  expect(o.text).toContain('via UCP · agent.example');
  expect(o.text).toContain('$30.00');
  const quote = {
    currency: 'USD',
    line_items: [{ quantity: 2, title: 'Mug', subtotal: 2500 }],
    totals: { subtotal: 2500, discount: 250, shipping: 500, tax: 0, total: 2750 },
    messages: [],
  };
  const c = await render(VIEWS.cart.html, { structuredContent: quote });
  expect(c.text).toContain('2 × Mug');
  expect(c.text).toContain('$27.50');
  expect(c.text).toContain('-$2.50');
});
