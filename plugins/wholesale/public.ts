/**
 * What orders use of wholesale: the unit price a customer's groups pay. A plugin importing this
 * declares `requires: ['wholesale']`.
 */
const PRODUCT = '00000000-0000-0000-0000-000000000000';

export interface WholesaleLine {
  product_id: string;
  variant_id: string | null;
  quantity: number;
  unit_price_minor: number;
  currency: string;
}

/** One group price of a product (or of one of its variants: `variant_key`), as groupPricesSql reads it. */
export interface GroupPrice {
  product_id: string;
  variant_key: string;
  currency: string;
  price_minor: number | string;
  quantity_breaks: { min_quantity: number; price_minor: number }[];
}

/**
 * The prices of customer groups `groups` (an SQL text[] expression: the customer's tags) for the
 * products `products` (a uuid[] placeholder), as SQL for a statement that reads them with other
 * things (orders' first read, before any lock): an expression giving a JSON array of GroupPrice.
 */
export const groupPricesSql = (store: string, groups: string, products: string) =>
  `(SELECT coalesce(json_agg(json_build_object('product_id', product_id, 'variant_key', variant_key, 'currency', currency,
      'price_minor', price_minor, 'quantity_breaks', quantity_breaks)), '[]')
    FROM wholesale_prices WHERE store_id = ${store} AND customer_group = ANY(${groups}::text[]) AND product_id = ANY(${products}::uuid[]))`;

/**
 * Each line's unit price, given the group prices of the customer's groups for these products
 * (groupPricesSql): the lowest of retail, each group's price for the variant or the product, and
 * the best quantity break the line's quantity reaches. No prices: retail.
 */
export function unitPrices(prices: readonly GroupPrice[], lines: WholesaleLine[]): number[] {
  return lines.map((l) => {
    // The variant's own prices and the product's, of every group the customer is in: the lowest wins.
    const candidates = prices.filter(
      (r) => r.product_id === l.product_id && (r.variant_key === PRODUCT || r.variant_key === l.variant_id) && r.currency === l.currency,
    );
    let best = l.unit_price_minor;
    for (const r of candidates) {
      best = Math.min(best, Number(r.price_minor));
      for (const b of r.quantity_breaks) if (l.quantity >= b.min_quantity) best = Math.min(best, Number(b.price_minor));
    }
    return best;
  });
}

export { PRODUCT as PRODUCT_KEY };
