/**
 * The MCP Apps views (ext-apps 2026-01-26): three self-contained HTML documents, built here as
 * strings so they are part of the binary. Each talks to its host over postMessage JSON-RPC
 * (`ui/initialize`, then `ui/notifications/initialized`), renders the tool result the host hands it
 * (`ui/notifications/tool-result`: the tool's structuredContent) with DOM text nodes only (no
 * innerHTML of data), and reaches nothing else: its CSP allows no connection, no frame, no
 * remote image or script. None of them takes payment: a cart is priced, never paid, here.
 */

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The host bridge and small DOM helpers every view shares; `render(data)` is the view's own. */
const BRIDGE = `
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined && text !== null) e.textContent = String(text); return e; };
const money = (n, cur) => { try { return new Intl.NumberFormat(undefined, { style: 'currency', currency: cur || 'USD' }).format(n); } catch { return String(n) + ' ' + (cur || ''); } };
const minor = (n, cur) => { const d = ['JPY','KRW','VND','CLP','ISK'].includes(String(cur).toUpperCase()) ? 0 : 2; return money(n / Math.pow(10, d), cur); };
let nextId = 1;
const send = (msg) => window.parent.postMessage({ jsonrpc: '2.0', ...msg }, '*');
const request = (method, params) => send({ id: nextId++, method, params });
window.addEventListener('message', (ev) => {
  const m = ev.data;
  if (!m || m.jsonrpc !== '2.0') return;
  if (m.id === 1 && m.result) send({ method: 'ui/notifications/initialized', params: {} });
  if (m.method === 'ui/notifications/tool-result') {
    const r = m.params || {};
    const data = r.structuredContent || (() => { try { return JSON.parse((r.content || [])[0].text); } catch { return null; } })();
    const root = document.getElementById('app');
    root.replaceChildren();
    if (!data || r.isError) { root.append(el('p', 'muted', (data && data.error && data.error.message) || 'Nothing to show.')); return; }
    render(data, root);
    send({ method: 'ui/notifications/size-changed', params: { height: document.documentElement.scrollHeight } });
  }
});
request('ui/initialize', { appInfo: { name: 'svc', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' });
`;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; padding: 12px; color: var(--color-text-primary, #111); background: transparent; }
.card { border: 1px solid #ddd; border-radius: 8px; padding: 12px; }
h1 { font-size: 16px; margin: 0 0 4px; } .muted { color: #666; } .row { display: flex; justify-content: space-between; gap: 12px; padding: 2px 0; }
.total { font-weight: 600; border-top: 1px solid #ddd; margin-top: 6px; padding-top: 6px; } ul { padding-left: 18px; margin: 6px 0; }
.badge { display: inline-block; font-size: 12px; padding: 1px 6px; border-radius: 10px; background: #eee; }
`;

function page(title: string, render: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"><title>${title}</title><style>${STYLE}</style></head><body><div id="app" class="card"><p class="muted">Loading…</p></div><script>${BRIDGE}\n${render}</script></body></html>`;
}

/** products' get_product / list_products results: one card per product (a list shows up to 6). */
const PRODUCT = `
function card(p, root) {
  const c = el('div', 'card');
  c.append(el('h1', '', p.name));
  const price = p.pricing_data || {};
  c.append(el('div', 'row', money(price.retail, price.currency)));
  c.append(el('span', 'badge', p.stock_status === 'in_stock' ? 'In stock' : 'Out of stock'));
  if (p.description) c.append(el('p', 'muted', p.description.slice(0, 300)));
  if ((p.variants || []).length) {
    const ul = el('ul');
    for (const v of p.variants.slice(0, 10)) ul.append(el('li', '', Object.values(v.options || {}).join(' / ') + ' — ' + money(v.price, price.currency)));
    c.append(ul);
  }
  root.append(c);
}
function render(data, root) {
  const list = Array.isArray(data.data) ? data.data : [data];
  for (const p of list.slice(0, 6)) if (p && p.object === 'product') card(p, root);
  if (!root.childElementCount) root.append(el('p', 'muted', 'No product.'));
}`;

/** orders' get_order: number, status, lines, totals, channel and agent. */
const ORDER = `
function render(o, root) {
  if (o.object !== 'order') { root.append(el('p', 'muted', 'No order.')); return; }
  root.append(el('h1', '', 'Order ' + o.order_number));
  root.append(el('span', 'badge', o.status));
  if (o.channel && o.channel !== 'api') root.append(el('span', 'badge', 'via ' + o.channel.toUpperCase() + (o.agent && o.agent.name ? ' · ' + o.agent.name : '')));
  const ul = el('ul');
  for (const l of o.line_items || []) ul.append(el('li', '', l.quantity + ' × ' + l.name + ' — ' + money(l.total, o.currency)));
  root.append(ul);
  const row = (k, v, cls) => { const r = el('div', 'row ' + (cls || '')); r.append(el('span', '', k), el('span', '', money(v, o.currency))); root.append(r); };
  row('Subtotal', o.subtotal);
  if (o.discount_total) row('Discount', -o.discount_total);
  if (o.shipping_total) row('Shipping', o.shipping_total);
  if (o.tax_total) row('Tax', o.tax_total);
  row('Total', o.total, 'total');
}`;

/** cart.quote: the priced cart (engine view, integer minor units), messages, no payment. */
const CART = `
function render(c, root) {
  root.append(el('h1', '', 'Your cart'));
  const cur = c.currency;
  for (const l of c.line_items || []) {
    const r = el('div', 'row'); r.append(el('span', '', l.quantity + ' × ' + l.title), el('span', '', minor(l.subtotal, cur))); root.append(r);
  }
  const t = c.totals || {};
  const row = (k, v, cls) => { const r = el('div', 'row ' + (cls || '')); r.append(el('span', '', k), el('span', '', minor(v, cur))); root.append(r); };
  row('Subtotal', t.subtotal || 0);
  if (t.discount) row('Discount', -t.discount);
  if (t.shipping) row('Shipping', t.shipping);
  if (t.tax) row('Tax', t.tax);
  row('Total', t.total || 0, 'total');
  for (const m of c.messages || []) if (m.type !== 'info') root.append(el('p', 'muted', m.content));
}`;

export const VIEWS = {
  product: {
    uri: 'ui://svc/product-card',
    name: 'Product card',
    description: 'A product: name, price, stock, variants.',
    html: page('Product', PRODUCT),
  },
  order: { uri: 'ui://svc/order', name: 'Order', description: 'An order: number, status, lines, totals, channel.', html: page('Order', ORDER) },
  cart: {
    uri: 'ui://svc/cart',
    name: 'Cart summary',
    description: 'A priced cart (cart quote): lines, discounts, shipping, tax, total.',
    html: page('Cart', CART),
  },
};
