import type { Static } from '@sinclair/typebox';
import {
  checkCurrency,
  errors,
  fail,
  fromMinor,
  isUniqueViolation,
  isoOrNull,
  jsonParam,
  listPage,
  parseInstant,
  rowOr404,
  stamps,
  toMinor,
  type Ctx,
  type Row,
} from '../../core/sdk';
import { customerIdIn } from '../customers/public';
import { storeSettings } from '../store/public';
import type { InvoiceCreate, InvoiceQuery } from './schemas';

interface StoredLine {
  description: string;
  quantity: number;
  unit_price_minor: number;
  amount_minor: number;
}
export interface PostalAddress {
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postal_code?: string;
  country: string;
}
type Billed = { name: string | null; email: string | null; address: PostalAddress | null };

export function toInvoice(r: Row) {
  const c = r.currency;
  const m = (minor: number | string) => fromMinor(minor, c);
  const discounts = (r.discounts as { code: string; amount_minor: number }[]).map((d) => ({ code: d.code, amount: m(d.amount_minor) }));
  const taxLines = (r.tax_lines as { name: string; percentage: number; amount_minor: number }[]).map((t) => ({
    name: t.name,
    percentage: Number(t.percentage),
    amount: m(t.amount_minor),
  }));
  const sum = (xs: { amount_minor: number }[]) => xs.reduce((s, x) => s + Number(x.amount_minor), 0);
  return {
    object: 'invoice' as const,
    id: r.id,
    number: r.number,
    status: r.status as 'open' | 'paid',
    order_id: r.order_id,
    customer_id: r.customer_id,
    bill_to: r.bill_to as Billed,
    currency: c,
    lines: (r.lines as StoredLine[]).map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unit_price: m(l.unit_price_minor),
      amount: m(l.amount_minor),
    })),
    subtotal: m(r.subtotal_minor),
    discounts,
    discount_total: m(sum(r.discounts)),
    tax_lines: taxLines,
    tax_total: m(sum(r.tax_lines)),
    prices_include_tax: r.prices_include_tax,
    total: m(r.total_minor),
    amount_due: r.status === 'paid' ? 0 : m(r.total_minor),
    memo: r.memo,
    due_at: isoOrNull(r.due_at),
    paid_at: isoOrNull(r.paid_at),
    sent_at: isoOrNull(r.sent_at),
    ...stamps(r),
  };
}
export type InvoiceOut = ReturnType<typeof toInvoice>;

export const invoiceRow = (ctx: Ctx, id: string, lock?: 'FOR UPDATE') =>
  rowOr404(ctx.db, { table: 'invoices', storeId: ctx.store.id, id, noun: 'invoice', lock });

export const getInvoice = async (ctx: Ctx, id: string) => toInvoice(await invoiceRow(ctx, id));

export const listInvoices = (ctx: Ctx, input: Static<typeof InvoiceQuery>) =>
  listPage(
    ctx,
    {
      table: 'invoices',
      path: '/invoices',
      input,
      filters: { 'status = $': input.status, 'order_id = $': input.order_id, 'customer_id = $': input.customer_id },
    },
    (rows) => rows.map(toInvoice),
  );

/** The customer's name and email for the bill-to block; an order's address comes with it. */
async function billedCustomer(ctx: Ctx, id: string | null, param: string): Promise<Billed> {
  if (!id) return { name: null, email: null, address: null };
  const known = await customerIdIn(ctx.db, ctx.store.id, id);
  if (!known) {
    if (param === 'customer_id') throw errors.notFound(`customer: '${id}'`, param);
    return { name: null, email: null, address: null };
  }
  const c = await ctx.call('customers.get_customer', { id: known });
  const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || null;
  return { name, email: c.email ?? null, address: null };
}

/** What an invoice copies: from its order, or from free lines (public.ts draws an order's sheet with it). */
export async function contentOf(ctx: Ctx, i: Static<typeof InvoiceCreate>, currencyDefault: string) {
  if (i.order_id) {
    if (i.lines || i.customer_id || i.currency)
      throw errors.validation(
        'With order_id the order gives the lines, customer and currency: leave lines, customer_id and currency out.',
        i.lines ? 'lines' : i.customer_id ? 'customer_id' : 'currency',
      );
    const o = await ctx.call('orders.get_order', { id: i.order_id }, { notFoundParam: 'order_id' });
    if (o.status === 'cancelled') throw errors.conflict('This order was cancelled: there is nothing to invoice.', 'conflict_error', 'order_id');
    const c = o.currency;
    const minor = (n: number) => toMinor(n, c, 'order_id');
    const billed = await billedCustomer(ctx, o.customer_id, 'order_id');
    const address = o.billing_address ?? o.shipping_address ?? null;
    return {
      orderId: o.id,
      customerId: o.customer_id,
      billTo: { ...billed, name: address?.name ?? billed.name, address },
      currency: c,
      lines: o.line_items.map((l) => ({
        description: l.sku ? `${l.name} (${l.sku})` : l.name,
        quantity: l.quantity,
        unit_price_minor: minor(l.unit_price),
        amount_minor: minor(l.total),
      })),
      subtotal: minor(o.subtotal),
      discounts: o.discounts.map((d) => ({ code: d.code, amount_minor: minor(d.amount) })),
      taxLines: o.tax_lines.map((t) => ({ name: t.name, percentage: t.percentage, amount_minor: minor(t.amount) })),
      pricesIncludeTax: o.prices_include_tax,
      total: minor(o.total),
      // An order already paid for gives a paid invoice (a receipt); a pending one an open invoice.
      paid: ['paid', 'fulfilled', 'completed'].includes(o.status),
    };
  }
  if (!i.lines) throw errors.validation('Give order_id, or lines and customer_id.', 'lines');
  if (!i.customer_id) throw errors.validation('Missing customer_id: free lines bill a customer.', 'customer_id');
  const c = i.currency ? checkCurrency(i.currency, 'currency') : currencyDefault;
  const lines = i.lines.map((l, n) => {
    const unit = toMinor(l.unit_price, c, `lines.${n}.unit_price`);
    return { description: l.description, quantity: l.quantity, unit_price_minor: unit, amount_minor: unit * l.quantity };
  });
  const subtotal = lines.reduce((s, l) => s + l.amount_minor, 0);
  return {
    orderId: null,
    customerId: i.customer_id.toLowerCase(),
    billTo: await billedCustomer(ctx, i.customer_id, 'customer_id'),
    currency: c,
    lines,
    subtotal,
    discounts: [],
    taxLines: [],
    pricesIncludeTax: false,
    total: subtotal,
    paid: false,
  };
}

export async function createInvoice(ctx: Ctx, i: Static<typeof InvoiceCreate>) {
  const settings = await storeSettings(ctx.db, ctx.store.id);
  const dueAt = i.due_at === undefined ? null : parseInstant(i.due_at, 'due_at');
  const x = await contentOf(ctx, i, settings.currency);
  if (x.orderId) {
    const [had] = await ctx.db.query('SELECT number FROM invoices WHERE store_id = $1 AND order_id = $2', [ctx.store.id, x.orderId]);
    if (had) throw fail('invoice_exists', `This order already has invoice ${had.number}.`, 'order_id');
  }
  // The counter's row stays locked until this transaction ends: the next creation waits, so
  // numbers follow commits with no gap (a rollback gives its number back) and no repeat.
  const [{ last }] = await ctx.db.query<{ last: number }>(
    `INSERT INTO invoice_counters (store_id, last) VALUES ($1, 1)
     ON CONFLICT (store_id) DO UPDATE SET last = invoice_counters.last + 1 RETURNING last`,
    [ctx.store.id],
  );
  const number = `${settings.invoice_prefix}${String(last).padStart(6, '0')}`;
  const now = ctx.clock.now();
  try {
    const [r] = await ctx.db.query(
      `INSERT INTO invoices (id, store_id, number, sequence, order_id, customer_id, bill_to, currency, lines, subtotal_minor, discounts, tax_lines,
         prices_include_tax, total_minor, status, due_at, paid_at, memo, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6::text::jsonb, $7, $8::text::jsonb, $9, $10::text::jsonb, $11::text::jsonb, $12, $13, $14, $15, $16, $17, $18, $18)
       RETURNING *`,
      [
        ctx.store.id,
        number,
        last,
        x.orderId,
        x.customerId,
        jsonParam(x.billTo),
        x.currency,
        jsonParam(x.lines),
        x.subtotal,
        jsonParam(x.discounts),
        jsonParam(x.taxLines),
        x.pricesIncludeTax,
        x.total,
        x.paid ? 'paid' : 'open',
        dueAt,
        x.paid ? now : null,
        i.memo ?? null,
        now,
      ],
    );
    const inv = toInvoice(r);
    ctx.emit('invoice.created', inv);
    return inv;
  } catch (e) {
    // Two creations for one order at once: the second waited on the counter, then met the index.
    if (isUniqueViolation(e) && x.orderId) throw fail('invoice_exists', 'This order already has an invoice.', 'order_id');
    throw e;
  }
}

/** Paid once: a second call answers the invoice as it is, with the first paid_at. */
export async function markPaid(ctx: Ctx, id: string) {
  const r = await invoiceRow(ctx, id, 'FOR UPDATE');
  if (r.status === 'paid') return toInvoice(r);
  const now = ctx.clock.now();
  const [u] = await ctx.db.query(`UPDATE invoices SET status = 'paid', paid_at = $3, updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *`, [
    ctx.store.id,
    id,
    now,
  ]);
  const inv = toInvoice(u);
  ctx.emit('invoice.paid', inv);
  return inv;
}
