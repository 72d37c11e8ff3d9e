import type { Static } from '@sinclair/typebox';
import { fail, fromMinor, type Ctx } from '../../core/sdk';
import { pricedLines } from '../products/public';
import { storeSettings } from '../store/public';
import { quote } from './public';
import type { CalculateInput } from './schemas';

/** What an order of these lines would be charged, shipped there: the same arithmetic as placing it, nothing written. */
export async function calculateTax(ctx: Ctx, i: Static<typeof CalculateInput>) {
  const lines = await pricedLines(ctx.db, ctx.store.id, i.line_items);
  const currency = lines[0].currency;
  const inclusive = i.prices_include_tax ?? (await storeSettings(ctx.db, ctx.store.id)).prices_include_tax;
  const q = await quote(ctx.db, ctx.store.id, {
    lines,
    codes: i.discount_codes ?? [],
    customerId: i.customer_id ?? null,
    currency,
    now: ctx.clock.now(),
    address: i.shipping_address,
    pricesIncludeTax: inclusive,
  });
  if (!q.ok)
    throw fail(
      'coupon_not_applicable',
      `Discount code '${q.code}' does not apply (${q.refusal.reason_code}): ${q.refusal.reason}`,
      `discount_codes.${q.index}`,
    );
  const m = (minor: number) => fromMinor(minor, currency);
  const r = q.quote;
  return {
    object: 'tax_calculation' as const,
    currency,
    prices_include_tax: inclusive,
    lines: lines.map((l, n) => ({
      product_id: l.product_id,
      variant_id: l.variant_id,
      quantity: l.quantity,
      amount: m(l.amount_minor),
      discount: m(r.lineDiscounts[n]),
      taxable_amount: m(l.amount_minor - r.lineDiscounts[n]),
      tax: m(r.lineTax[n].minor),
      rate_id: r.lineTax[n].rate_id,
    })),
    tax_lines: r.taxLines.map((t) => ({ rate_id: t.rate_id, name: t.name, percentage: t.percentage, amount: m(t.amount_minor) })),
    subtotal: m(r.subtotal),
    discounts: r.discounts.map((d) => ({ code: d.code, amount: m(d.amount_minor) })),
    discount_total: m(r.discountTotal),
    tax_total: m(r.taxTotal),
    total: m(r.total),
  };
}
