/**
 * What orders use of wholesale: the unit price a customer's groups pay. A plugin importing this
 * declares `requires: ['wholesale']`.
 */
import type { Db } from '../../core/sdk';

const PRODUCT = '00000000-0000-0000-0000-000000000000';

export interface WholesaleLine {
  product_id: string;
  variant_id: string | null;
  quantity: number;
  unit_price_minor: number;
  currency: string;
}

/**
 * Each line's unit price for a customer in `groups` (their tags): the lowest of retail, each
 * group's price for the variant or the product, and the best quantity break the line's quantity
 * reaches. No group, no price: retail. One query at most.
 */
export async function unitPrices(db: Db, storeId: string, groups: readonly string[], lines: WholesaleLine[]): Promise<number[]> {
  const retail = lines.map((l) => l.unit_price_minor);
  if (!groups.length || !lines.length) return retail;
  const rows = await db.query(
    `SELECT product_id, variant_key, currency, price_minor, quantity_breaks FROM wholesale_prices
     WHERE store_id = $1 AND customer_group = ANY($2::text[]) AND product_id = ANY($3::uuid[])`,
    [storeId, groups, [...new Set(lines.map((l) => l.product_id))]],
  );
  return lines.map((l, i) => {
    // The variant's own prices and the product's, of every group the customer is in: the lowest wins.
    const candidates = rows.filter(
      (r) => r.product_id === l.product_id && (r.variant_key === PRODUCT || r.variant_key === l.variant_id) && r.currency === l.currency,
    );
    let best = retail[i];
    for (const r of candidates) {
      best = Math.min(best, Number(r.price_minor));
      for (const b of r.quantity_breaks as { min_quantity: number; price_minor: number }[])
        if (l.quantity >= b.min_quantity) best = Math.min(best, Number(b.price_minor));
    }
    return best;
  });
}

export { PRODUCT as PRODUCT_KEY };
