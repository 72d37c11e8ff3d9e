import type { Theme } from './schemas';

/** Everything a user typed goes through this before it reaches the page: text, never markup. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface PreviewProduct {
  name: string;
  price: number;
  currency: string;
}

const fontStack = (f: string) => (f === 'system-ui' ? 'system-ui, sans-serif' : `"${f}", system-ui, sans-serif`);
const price = (p: PreviewProduct) => `${p.price.toFixed(2)} ${p.currency}`;

/**
 * The home page as the theme draws it, one self-contained document: inline CSS, no script, no
 * outside stylesheet or font (a font missing on the viewer's machine falls back to system-ui).
 * Only the logo is fetched, from its https URL. Colors and fonts were checked against their
 * patterns and list on the way in; every other value is escaped here.
 */
export function renderHome(storeName: string, t: Theme, products: PreviewProduct[]): string {
  const e = escapeHtml;
  const name = e(storeName);
  const hero =
    t.layout === 'grid' || (!t.hero_title && !t.hero_subtitle)
      ? ''
      : `<section class="hero"><h1>${e(t.hero_title ?? storeName)}</h1>${t.hero_subtitle ? `<p>${e(t.hero_subtitle)}</p>` : ''}</section>`;
  const items = products.length
    ? products
        .map((p) =>
          t.layout === 'minimal'
            ? `<li class="product"><span class="name">${e(p.name)}</span> <span class="price">${e(price(p))}</span></li>`
            : `<li class="product"><div class="thumb" aria-hidden="true"></div><span class="name">${e(p.name)}</span><span class="price">${e(price(p))}</span></li>`,
        )
        .join('')
    : '<li class="empty">No products yet.</li>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name}</title>
<style>
:root { --primary: ${t.primary_color}; --accent: ${t.accent_color}; --bg: ${t.background_color}; --text: ${t.text_color}; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font-family: ${fontStack(t.body_font)}; }
h1, h2, .brand { font-family: ${fontStack(t.heading_font)}; }
.announcement { background: var(--accent); color: #fff; text-align: center; padding: 6px 12px; font-size: 14px; }
header { background: var(--primary); color: #fff; padding: 16px 24px; display: flex; align-items: center; gap: 12px; }
header img { max-height: 40px; }
.brand { font-size: 22px; font-weight: 700; }
.hero { padding: 48px 24px; text-align: center; }
.hero h1 { margin: 0 0 8px; font-size: 36px; color: var(--primary); }
main { padding: 24px; }
.products { list-style: none; padding: 0; margin: 0; display: grid; gap: 16px; grid-template-columns: repeat(${t.products_per_row}, minmax(0, 1fr)); }
.layout-minimal .products { display: block; }
.layout-minimal .product { padding: 8px 0; border-bottom: 1px solid rgba(0,0,0,.1); }
.product { display: flex; flex-direction: column; gap: 6px; }
.thumb { aspect-ratio: 1; background: var(--primary); opacity: .12; border-radius: 6px; }
.price { color: var(--accent); font-weight: 600; }
footer { padding: 24px; text-align: center; font-size: 14px; opacity: .8; }
@media (max-width: 600px) { .products { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
</style></head>
<body class="layout-${t.layout}">
${t.announcement_text ? `<div class="announcement">${e(t.announcement_text)}</div>` : ''}
<header>${t.logo_url ? `<img src="${e(t.logo_url)}" alt="">` : ''}<span class="brand">${name}</span></header>
${hero}
<main><h2>Products</h2><ul class="products">${items}</ul></main>
<footer>${e(t.footer_text ?? `© ${storeName}`)}</footer>
</body></html>
`;
}
