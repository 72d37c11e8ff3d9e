import { fail, fromMinor, type Db } from '../../core/sdk';
import { applyCodes, type AppliedCode } from '../coupons/public';

/** A line as pricing sees it, in the order's line order. */
export interface PricingLine {
  product_id: string;
  amount_minor: number;
  tax_class: string;
}

export interface Priced {
  subtotal: number;
  discounts: AppliedCode[];
  lineDiscounts: number[];
  discountTotal: number;
  lineTax: { minor: number; rate_id: string | null }[];
  taxLines: { rate_id: string; name: string; percentage: number; amount_minor: number; taxable_minor: number }[];
  taxTotal: number;
  total: number;
  pricesIncludeTax: boolean;
}

/**
 * The money of an order being placed: its discount codes applied in the order given (coupons'
 * row locks taken, so their limits hold until this transaction ends), then the total. A code that
 * does not apply refuses the order: 409 coupon_not_applicable naming discount_codes.<n>, with the
 * reason validate would give.
 */
export async function priceOrder(
  tx: Db,
  storeId: string,
  o: { lines: PricingLine[]; codes: readonly string[]; customerId: string | null; currency: string; now: Date; pricesIncludeTax: boolean },
): Promise<Priced> {
  const subtotal = o.lines.reduce((s, l) => s + l.amount_minor, 0);
  const applied = await applyCodes(tx, storeId, o.codes, { now: o.now, currency: o.currency, lines: o.lines, customerId: o.customerId, lock: true });
  if (!applied.ok)
    throw fail(
      'coupon_not_applicable',
      `Discount code '${applied.code}' does not apply (${applied.refusal.reason_code}): ${applied.refusal.reason}`,
      `discount_codes.${applied.index}`,
    );
  const discountTotal = applied.discounts.reduce((s, d) => s + d.amount_minor, 0);
  const lineTax = o.lines.map(() => ({ minor: 0, rate_id: null }));
  return {
    subtotal,
    discounts: applied.discounts,
    lineDiscounts: applied.lineDiscounts,
    discountTotal,
    lineTax,
    taxLines: [],
    taxTotal: 0,
    total: subtotal - discountTotal,
    pricesIncludeTax: o.pricesIncludeTax,
  };
}

/** The order's discounts as the API shows them. */
export const discountsOut = (stored: { code: string; amount_minor: number }[], currency: string) =>
  stored.map((d) => ({ code: d.code, amount: fromMinor(d.amount_minor, currency) }));
