/**
 * The checkout plugin's MCP Apps (core/mcp/apps.ts): a product card on products' tool, an order
 * view on orders', and a cart summary on `cart` (action `quote`, flat `cart_quote`), the one tool
 * only MCP Apps clients get. `cart.quote` prices a cart through the checkout engine and creates
 * nothing: no session, no order, no stock taken.
 */
import { Type } from '@sinclair/typebox';
import { action, Input, onFirstCall, type McpApps } from '../../../core/sdk';
import { VIEWS } from './views';

// The engine: loaded at the first quote, not at start (plugins/README.md).
const { quoteCart } = onFirstCall(() => import('../engine'));

const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const CartQuote = Input({
  line_items: Type.Array(
    Input({
      item_id: Type.String({ minLength: 1, maxLength: 100, description: 'A product id, or a variant id of a variable product.' }),
      quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
    }),
    { minItems: 1, maxItems: 100 },
  ),
  discount_codes: Type.Optional(Type.Array(Text(100), { maxItems: 5, description: 'Applied in the order given, each to what the previous left.' })),
  shipping_address: Type.Optional(
    Input({
      name: Type.Optional(Text(200)),
      line1: Text(200),
      line2: Type.Optional(Text(200)),
      city: Text(100),
      region: Type.Optional(Text(100)),
      postal_code: Type.Optional(Type.String({ maxLength: 16 })),
      country: Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US' }),
    }),
  ),
});

export const CartQuoteResult = Type.Object(
  {
    currency: Type.String(),
    line_items: Type.Array(Type.Object({}, { additionalProperties: true })),
    totals: Type.Object({ subtotal: Type.Integer(), discount: Type.Integer(), shipping: Type.Integer(), tax: Type.Integer(), total: Type.Integer() }),
    messages: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true, description: 'The priced cart in integer minor units: lines, shipping options, discounts, tax, totals, messages.' },
);

export const appActions = {
  quote_cart: action({
    kind: 'read',
    internal: true,
    description: 'Price a cart (lines, discount codes, shipping address) through the checkout engine; creates nothing.',
    input: CartQuote,
    output: CartQuoteResult,
    handler: (ctx, input) => quoteCart(ctx, input),
  }),
};

export const checkoutApps: McpApps = {
  views: [VIEWS.product, VIEWS.order, VIEWS.cart],
  links: [
    { tool: 'products', actions: ['get_product', 'list_products'], view: VIEWS.product.uri },
    { tool: 'orders', actions: ['get_order'], view: VIEWS.order.uri },
  ],
  tools: [
    {
      name: 'cart',
      description: 'Price a cart for the buyer (lines, discount codes, shipping address): a summary view, nothing created.',
      view: VIEWS.cart.uri,
      actions: { quote: 'quote_cart' },
    },
  ],
};
