import { fail, fromMinor, type Db } from '../../core/sdk';
import { quote, type Quote, type QuoteInput } from '../tax/public';

/**
 * The money of an order being placed, through tax's `quote` (the same arithmetic calculate_tax
 * shows): its discount codes applied in the order given, with the coupons' row locks taken so
 * their limits hold until this transaction ends, then tax per line. A code that does not apply
 * refuses the order: 409 coupon_not_applicable naming discount_codes.<n>, with validate's reason.
 */
export async function priceOrder(tx: Db, storeId: string, o: QuoteInput): Promise<Quote> {
  const q = await quote(tx, storeId, { ...o, lock: true });
  if (!q.ok)
    throw fail(
      'coupon_not_applicable',
      `Discount code '${q.code}' does not apply (${q.refusal.reason_code}): ${q.refusal.reason}`,
      `discount_codes.${q.index}`,
    );
  return q.quote;
}

/** The order's discounts as the API shows them. */
export const discountsOut = (stored: { code: string; amount_minor: number }[], currency: string) =>
  stored.map((d) => ({ code: d.code, amount: fromMinor(d.amount_minor, currency) }));
