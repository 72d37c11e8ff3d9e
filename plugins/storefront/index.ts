import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_storefront.sql' with { type: 'text' };
import { StorefrontConfig, ThemeUpdate } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { getConfig, previewPage, updateTheme } = onFirstCall(() => import('./store'));

/** SPEC 4.10 `storefront`: the shop's theme and a preview of its home page. */
const storefront = definePlugin({
  name: 'storefront',
  category: 'commerce',
  description:
    "The storefront's theme (colors, fonts, logo, layout, products per row, announcement, hero and footer text) and a preview of its home page.",
  resource: 'storefront',
  catalog: true,
  // SPEC 5.4: storefront, storefront:read, storefront:write.
  scopes: { read: ['storefront', 'storefront:read', 'storefront:write'], write: ['storefront', 'storefront:write'] },
  tables: ['storefront_themes'],
  // The preview shows the store's name (store.get_store) and its active products (products.list_products).
  requires: ['products', 'store'],
  events: { 'storefront.theme_updated': StorefrontConfig },
  migrations: [{ id: 'storefront/001_storefront', sql: migration001 }],
  actions: {
    get_config: action({
      kind: 'read',
      description: "The storefront's theme (defaults where none was set) and the fonts it may use.",
      input: Input({}),
      output: StorefrontConfig,
      rest: { method: 'GET', path: '/storefront' },
      handler: getConfig,
    }),
    update_theme: action({
      kind: 'write',
      description:
        'Change the theme; fields left out keep their value. Colors #rrggbb; heading_font/body_font from get_config `fonts`; logo_url https; layout classic, grid or minimal; products_per_row 2-6; texts are shown escaped (null removes them).',
      input: ThemeUpdate,
      output: StorefrontConfig,
      rest: { method: 'PATCH', path: '/storefront/theme' },
      emits: ['storefront.theme_updated'],
      example: { primary_color: '#0f766e', layout: 'grid', hero_title: 'Spring sale' },
      handler: updateTheme,
    }),
    preview: action({
      kind: 'read',
      description: 'The home page as the theme draws it (store name, theme, first active products), as HTML; tool callers get a link valid one hour.',
      input: Input({}),
      output: Type.Object({}, { description: 'The page (text/html).' }),
      rest: { method: 'GET', path: '/storefront/preview', response: 'raw', contentType: 'text/html', asTool: 'link', linkTtlS: 3600 },
      handler: previewPage,
    }),
  },
});
export default storefront;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'storefront', typeof storefront> {}
}
