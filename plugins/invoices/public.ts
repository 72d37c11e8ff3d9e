// What other plugins (documents) may use: the invoice's PDF drawing, for an invoice or another
// sheet of its shape (a quote, a packing slip), and an order's content as an invoice copies it.
import { fromMinor, iso, type Ctx } from '../../core/sdk';
import type { SheetContent } from './pdf';
import { contentOf, toInvoice } from './store';

export { INVOICE_SHEET, invoicePdf, type Sheet, type SheetContent } from './pdf';
/** The store as a sheet shows it (its name and settings: address, contact). */
export { issuer } from './send';

/** The order's invoice, if it has one. */
export async function invoiceOfOrder(ctx: Ctx, orderId: string) {
  const [r] = await ctx.db.query('SELECT * FROM invoices WHERE store_id = $1 AND order_id = $2', [ctx.store.id, orderId]);
  return r ? toInvoice(r) : null;
}

/**
 * An order as a sheet, with what an invoice of it would copy (lines, discounts, tax, bill-to),
 * numbered `number`, recording nothing. 404 naming order_id; a cancelled order is 409.
 */
export async function orderSheet(ctx: Ctx, orderId: string, number: string): Promise<SheetContent> {
  const x = await contentOf(ctx, { order_id: orderId }, '');
  const m = (minor: number) => fromMinor(minor, x.currency);
  return {
    number,
    status: x.paid ? 'paid' : 'open',
    created_at: iso(ctx.clock.now()),
    due_at: null,
    paid_at: null,
    bill_to: x.billTo,
    currency: x.currency,
    lines: x.lines.map((l) => ({ description: l.description, quantity: l.quantity, unit_price: m(l.unit_price_minor), amount: m(l.amount_minor) })),
    subtotal: m(x.subtotal),
    discounts: x.discounts.map((d) => ({ code: d.code, amount: m(d.amount_minor) })),
    tax_lines: x.taxLines.map((t) => ({ name: t.name, percentage: Number(t.percentage), amount: m(t.amount_minor) })),
    prices_include_tax: x.pricesIncludeTax,
    total: m(x.total),
    amount_due: x.paid ? 0 : m(x.total),
    memo: null,
  };
}
