import type { Static } from '@sinclair/typebox';
import { isoOrNull, jsonParam, type Ctx } from '../../core/sdk';
import { renderHome } from './render';
import { DEFAULT_THEME, FONTS, type Theme, type ThemeUpdate } from './schemas';

async function themeRow(ctx: Ctx, lock = false) {
  const [r] = await ctx.db.query<{ theme: Partial<Theme>; updated_at: Date }>(
    `SELECT theme, updated_at FROM storefront_themes WHERE store_id = $1${lock ? ' FOR UPDATE' : ''}`,
    [ctx.store.id],
  );
  return r;
}

const view = (theme: Theme, updatedAt: Date | null) => ({
  object: 'storefront_config' as const,
  theme,
  fonts: [...FONTS],
  preview_path: '/storefront/preview',
  updated_at: isoOrNull(updatedAt),
});

/** A field the row lacks (added to the theme after it was saved) takes its default. */
const themeOf = (r: { theme: Partial<Theme> } | undefined): Theme => ({ ...DEFAULT_THEME, ...(r?.theme ?? {}) });

export async function getConfig(ctx: Ctx) {
  const r = await themeRow(ctx);
  return view(themeOf(r), r?.updated_at ?? null);
}

/** PATCH semantics: a field left out keeps its value; null clears logo_url and the texts. */
export async function updateTheme(ctx: Ctx, input: Static<typeof ThemeUpdate>) {
  const theme = { ...themeOf(await themeRow(ctx, true)), ...input } as Theme;
  const now = ctx.clock.now();
  await ctx.db.query(
    `INSERT INTO storefront_themes (store_id, theme, updated_at) VALUES ($1, $2::text::jsonb, $3)
     ON CONFLICT (store_id) DO UPDATE SET theme = EXCLUDED.theme, updated_at = EXCLUDED.updated_at`,
    [ctx.store.id, jsonParam(theme), now],
  );
  const out = view(theme, now);
  ctx.emit('storefront.theme_updated', out);
  return out;
}

/** The home page with the store's name, its theme and its first active products. */
export async function previewPage(ctx: Ctx): Promise<Response> {
  const theme = themeOf(await themeRow(ctx));
  const store = await ctx.call('store.get_store', {});
  const list = await ctx.call('products.list_products', { status: 'active', limit: theme.products_per_row * 2 });
  const products = list.data.map((p) => ({ name: p.name, price: p.pricing_data.retail, currency: p.pricing_data.currency }));
  return new Response(renderHome(store.name, theme, products), {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      // Belt and braces over the escaping: no script runs, nothing but the logo is fetched.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'",
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
