/**
 * What an order earns its affiliate (issue 48): on the subtotal after discounts, never tax or
 * shipping. A product's own rule wins for its lines (a percentage of them, or a fixed amount per
 * unit); the other lines earn the affiliate's rule (a percentage of them, or a fixed amount once
 * per order). Percentages round half-up, in minor units.
 */
type Rule = { type: 'percentage' | 'fixed'; value: number };
type Line = { product_id: string; quantity: number; total: number; discount: number };

const minor = (amount: number, scale: number) => Math.round(amount * scale);

export function commissionMinor(lines: Line[], rule: Rule, perProduct: (Rule & { product_id: string })[], scale: number): number {
  const own = new Map(perProduct.map((p) => [p.product_id.toLowerCase(), p]));
  let earned = 0;
  let restMinor = 0;
  let rest = false;
  for (const l of lines) {
    const net = minor(l.total, scale) - minor(l.discount, scale);
    const p = own.get(l.product_id.toLowerCase());
    if (!p) {
      rest = true;
      restMinor += net;
    } else earned += p.type === 'percentage' ? Math.round((net * p.value) / 100) : minor(p.value, scale) * l.quantity;
  }
  if (rest) earned += rule.type === 'percentage' ? Math.round((restMinor * rule.value) / 100) : minor(rule.value, scale);
  return earned;
}
