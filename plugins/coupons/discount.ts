import { decimalsOf, fromMinor, type Row } from '../../core/sdk';

/**
 * The arithmetic of a discount, free of SQL: which lines a coupon may discount, whether it applies
 * at all (and why not), and how much it takes off each line. Amounts are integer minor units.
 */

export type ReasonCode =
  | 'unknown_code'
  | 'not_started'
  | 'expired'
  | 'inactive'
  | 'minimum_subtotal'
  | 'no_eligible_items'
  | 'usage_limit_reached'
  | 'customer_limit_reached';

/** A line as discounts see it: `remaining` is what earlier codes left of its amount. */
export interface DiscountLine {
  product_id: string;
  remaining: number;
}

export interface Refusal {
  reason_code: ReasonCode;
  reason: string;
}

/** `a × num / den` rounded half up, exactly (BigInt: a line amount times a scaled percentage passes 2^53). */
export function mulDivHalfUp(a: number, num: bigint, den: bigint): number {
  const n = BigInt(a) * num;
  return Number((2n * n + den) / (2n * den));
}

/** A percentage (up to 4 decimals, e.g. 8.875) as an integer of ten-thousandths. */
export const percentScaled = (p: number | string) => BigInt(Math.round(Number(p) * 10_000));

const money = (minor: number, currency: string) => `${fromMinor(minor, currency).toFixed(decimalsOf(currency))} ${currency}`;

/**
 * Why `coupon` does not apply to an order of `currency` whose subtotal before discounts is
 * `subtotal`, or undefined when it does. Counts (times_redeemed, the customer's redemptions) are
 * read by the caller, under the coupon's row lock when it redeems.
 */
export function refusal(
  coupon: Row,
  o: { now: Date; currency: string; subtotal: number; lines: DiscountLine[]; eligible: boolean[]; customerId?: string | null; customerUses: number },
): Refusal | undefined {
  if (!coupon.active) return { reason_code: 'inactive', reason: 'This code was deactivated.' };
  if (coupon.starts_at && o.now < new Date(coupon.starts_at))
    return { reason_code: 'not_started', reason: `This code is valid from ${new Date(coupon.starts_at).toISOString()}.` };
  if (coupon.ends_at && o.now >= new Date(coupon.ends_at))
    return { reason_code: 'expired', reason: `This code expired at ${new Date(coupon.ends_at).toISOString()}.` };
  if (coupon.usage_limit !== null && Number(coupon.times_redeemed) >= Number(coupon.usage_limit))
    return { reason_code: 'usage_limit_reached', reason: `This code was used ${coupon.usage_limit} times, its limit.` };
  // A coupon of one customer (a loyalty reward's) is, for everyone else, a limit of no uses.
  if (coupon.customer_id && String(coupon.customer_id).toLowerCase() !== o.customerId?.toLowerCase())
    return { reason_code: 'customer_limit_reached', reason: "This code belongs to one customer; it is not this order's customer." };
  if (coupon.usage_limit_per_customer !== null) {
    if (!o.customerId) return { reason_code: 'customer_limit_reached', reason: 'This code is limited per customer: the order needs a customer_id.' };
    if (o.customerUses >= Number(coupon.usage_limit_per_customer))
      return { reason_code: 'customer_limit_reached', reason: `This customer used this code ${o.customerUses} times, its limit per customer.` };
  }
  // A minimum or an amount in another currency cannot be compared with this order: nothing here is eligible.
  if (coupon.currency && coupon.currency !== o.currency)
    return { reason_code: 'no_eligible_items', reason: `This code is for orders in ${coupon.currency}; this one is in ${o.currency}.` };
  if (coupon.minimum_subtotal_minor !== null && o.subtotal < Number(coupon.minimum_subtotal_minor))
    return {
      reason_code: 'minimum_subtotal',
      reason: `This code needs a subtotal of at least ${money(Number(coupon.minimum_subtotal_minor), o.currency)}; this one is ${money(o.subtotal, o.currency)}.`,
    };
  if (!o.lines.some((l, i) => o.eligible[i] && l.remaining > 0))
    return { reason_code: 'no_eligible_items', reason: 'No line of this order is one this code discounts (or earlier codes left nothing of them).' };
  return undefined;
}

/**
 * What the coupon takes off each line: a percentage of each eligible line's remaining amount, half
 * up per line; a fixed amount capped at what the eligible lines have left and spread over them in
 * proportion, the rounding remainders going to the largest fractions (so the parts add up exactly).
 */
export function perLine(coupon: Row, lines: DiscountLine[], eligible: boolean[]): number[] {
  if (coupon.percent_off !== null) {
    const p = percentScaled(coupon.percent_off);
    return lines.map((l, i) => (eligible[i] ? Math.min(l.remaining, mulDivHalfUp(l.remaining, p, 1_000_000n)) : 0));
  }
  const base = lines.reduce((s, l, i) => s + (eligible[i] ? l.remaining : 0), 0);
  const off = Math.min(Number(coupon.amount_off_minor), base);
  if (base === 0) return lines.map(() => 0);
  const exact = lines.map((l, i) => (eligible[i] ? BigInt(off) * BigInt(l.remaining) : 0n));
  const parts = exact.map((e) => Number(e / BigInt(base)));
  let left = off - parts.reduce((s, x) => s + x, 0);
  const order = exact
    .map((e, i) => ({ i, frac: e % BigInt(base) }))
    .filter((x) => eligible[x.i])
    .sort((a, b) => (b.frac > a.frac ? 1 : b.frac < a.frac ? -1 : a.i - b.i));
  for (const { i } of order) {
    if (left === 0) break;
    parts[i]++;
    left--;
  }
  return parts;
}
