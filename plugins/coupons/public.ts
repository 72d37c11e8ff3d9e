/**
 * What orders and tax use of coupons: checking discount codes against an order's lines and
 * counting their redemptions in the order's transaction. A plugin importing this declares
 * `requires: ['coupons']`.
 */
import { errors, existingIds, type Db, type Row } from '../../core/sdk';
import { collectionsOfProducts } from '../collections/public';
import { perLine, refusal, type DiscountLine, type Refusal } from './discount';

export type { ReasonCode, Refusal } from './discount';

/** Which of `ids` are coupons of the store. */
export const couponsIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'coupons', storeId, ids });

export interface AppliedCode {
  code: string;
  coupon_id: string;
  amount_minor: number;
}

export type Applied =
  | { ok: true; discounts: AppliedCode[]; lineDiscounts: number[] }
  | { ok: false; index: number; code: string; coupon_id: string | null; refusal: Refusal };

/**
 * Applies `codes` in the order given, each to what the previous left of every line (Stripe).
 * `lock` (an order being placed) takes the coupons' row locks in id order, so the counts read here
 * hold until the order's transaction ends and concurrent orders never deadlock. The first code
 * that does not apply is answered with its index and reason; nothing is written.
 */
export async function applyCodes(
  db: Db,
  storeId: string,
  codes: readonly string[],
  o: { now: Date; currency: string; lines: { product_id: string; amount_minor: number }[]; customerId?: string | null; lock?: boolean },
): Promise<Applied> {
  const lines: DiscountLine[] = o.lines.map((l) => ({ product_id: l.product_id, remaining: l.amount_minor }));
  const lineDiscounts = lines.map(() => 0);
  if (!codes.length) return { ok: true, discounts: [], lineDiscounts };
  const seen = new Set<string>();
  codes.forEach((c, n) => {
    if (seen.has(c.toLowerCase())) throw errors.validation(`Invalid discount_codes.${n}: '${c}' is given twice.`, `discount_codes.${n}`);
    seen.add(c.toLowerCase());
  });
  const rows = await db.query(
    `SELECT * FROM coupons WHERE store_id = $1 AND lower(code) = ANY($2::text[]) ORDER BY id${o.lock ? ' FOR UPDATE' : ''}`,
    [storeId, [...seen]],
  );
  const byCode = new Map(rows.map((r) => [r.code.toLowerCase(), r]));
  const limited = rows.filter((r) => r.usage_limit_per_customer !== null).map((r) => r.id);
  const uses = new Map<string, number>();
  if (limited.length && o.customerId) {
    const counted = await db.query<{ coupon_id: string; n: number }>(
      `SELECT coupon_id, count(*)::int AS n FROM coupon_redemptions
       WHERE store_id = $1 AND coupon_id = ANY($2::uuid[]) AND lower(customer_id) = lower($3) GROUP BY coupon_id`,
      [storeId, limited, o.customerId],
    );
    for (const c of counted) uses.set(c.coupon_id, Number(c.n));
  }
  const collectionIds = [...new Set(rows.flatMap((r) => r.collection_ids as string[]))];
  const memberships = await collectionsOfProducts(
    db,
    storeId,
    lines.map((l) => l.product_id),
    collectionIds,
  );
  const subtotal = lines.reduce((s, l) => s + l.remaining, 0);
  const discounts: AppliedCode[] = [];
  for (const [index, code] of codes.entries()) {
    const coupon = byCode.get(code.toLowerCase());
    if (!coupon)
      return { ok: false, index, code, coupon_id: null, refusal: { reason_code: 'unknown_code', reason: `No coupon has the code '${code}'.` } };
    const eligible = lines.map((l) => isEligible(coupon, l.product_id, memberships));
    const why = refusal(coupon, {
      now: o.now,
      currency: o.currency,
      subtotal,
      lines,
      eligible,
      customerId: o.customerId,
      customerUses: uses.get(coupon.id) ?? 0,
    });
    if (why) return { ok: false, index, code, coupon_id: coupon.id, refusal: why };
    const parts = perLine(coupon, lines, eligible);
    parts.forEach((p, i) => {
      lines[i].remaining -= p;
      lineDiscounts[i] += p;
    });
    discounts.push({ code: coupon.code, coupon_id: coupon.id, amount_minor: parts.reduce((s, p) => s + p, 0) });
  }
  return { ok: true, discounts, lineDiscounts };
}

/** A coupon naming neither products nor collections discounts every line; else the lines it names, either way. */
function isEligible(coupon: Row, productId: string, memberships: Map<string, Set<string>>) {
  const products: string[] = coupon.product_ids;
  const collections: string[] = coupon.collection_ids;
  if (!products.length && !collections.length) return true;
  return products.includes(productId) || collections.some((c) => memberships.get(productId)?.has(c));
}

/**
 * Counts the order's redemptions: the counters and the redemption rows, as common table
 * expressions of the statement that inserts the order, which names its row `o` (its id, store_id,
 * customer_id, created_at); `param` adds a parameter and answers its placeholder. In the order's
 * transaction, after `applyCodes(..., {lock: true})` took the coupons' row locks, so
 * `usage_limit` holds under any concurrency (the table's CHECK is the last line behind it).
 * A data-modifying CTE always runs, whether or not the statement reads it. None without codes.
 */
export function redemptionCtes(applied: AppliedCode[], param: (value: unknown) => string): string[] {
  if (!applied.length) return [];
  const ids = param(applied.map((a) => a.coupon_id));
  const amounts = param(applied.map((a) => a.amount_minor));
  return [
    `coupons_counted AS (
       UPDATE coupons c SET times_redeemed = c.times_redeemed + 1, updated_at = o.created_at FROM o WHERE c.store_id = o.store_id AND c.id = ANY(${ids}::uuid[])
     )`,
    `coupons_redeemed AS (
       INSERT INTO coupon_redemptions (id, store_id, coupon_id, order_id, customer_id, amount_minor, created_at)
       SELECT gen_random_uuid(), o.store_id, c, o.id, o.customer_id, a, o.created_at FROM o, unnest(${ids}::uuid[], ${amounts}::bigint[]) AS t(c, a)
     )`,
  ];
}

// The half-up arithmetic of percentages, shared with tax (which requires coupons).
export { mulDivHalfUp, percentScaled } from './discount';
