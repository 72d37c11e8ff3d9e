import { SvcError, type Db } from '../../core/sdk';
import { customerIdByEmail } from '../customers/public';
import { lockStock, variantStockSql } from '../inventory/public';
import { lockedProduct, pricedLines, variantProducts, type PricedLine } from '../products/public';
import { storeSettings } from '../store/public';
import { quote } from '../tax/public';
import { shippingQuotes } from '../fulfillment/public';
import type { Message, SessionChanges, SessionLine, ShippingOption, Totals } from './types';

/** What a session asked for, as stored (`state`): the engine's SessionChanges with everything set. */
export interface SessionState {
  line_items: { id: string; item_id: string; quantity: number }[];
  buyer: SessionChanges['buyer'];
  shipping_address: SessionChanges['shipping_address'];
  billing_address: SessionChanges['billing_address'];
  shipping_option_id: string | null;
  discount_codes: string[];
}

export interface Priced {
  currency: string;
  prices_include_tax: boolean;
  lines: SessionLine[];
  /** The lines an order can be made of (known, priced), with their product and variant. */
  orderable: { product_id: string; variant_id: string | null; quantity: number }[];
  shipping_options: ShippingOption[];
  shipping_option_id: string | null;
  discounts: { code: string; amount: number }[];
  tax_lines: { name: string; percentage: number; amount: number }[];
  totals: Totals;
  messages: Message[];
  customer_id: string | null;
}

const err = (code: string, content: string, path?: string, severity: Message['severity'] = 'high'): Message => ({
  type: 'error',
  code,
  content,
  path,
  severity,
});

/** Prices one line on its own, so a bad line becomes a message and the others still price. */
async function priceOne(db: Db, storeId: string, lines: { product_id: string; variant_id?: string; quantity: number }[]) {
  try {
    return await pricedLines(db, storeId, lines);
  } catch (e) {
    if (e instanceof SvcError && e.status < 500) return e;
    throw e;
  }
}

/**
 * The session priced as an order would be: lines at the catalog's prices (unknown or inactive
 * items and short stock become error messages), discount codes applied in order through coupons
 * (one that does not apply is left out with a warning, where an order would refuse it), tax
 * through tax, shipping options from the fulfillment zones of the shipping address, totals.
 * `lock` (completion) locks each product and its stock in product id order, as orders do, so the
 * units counted here are still there when the order takes them.
 */
export async function priceSession(db: Db, storeId: string, state: SessionState, o: { now: Date; lock?: boolean }): Promise<Priced> {
  const settings = await storeSettings(db, storeId);
  const messages: Message[] = [];
  const variants = await variantProducts(
    db,
    storeId,
    state.line_items.map((l) => l.item_id.toLowerCase()),
  );
  const resolved = state.line_items.map((l) => {
    const id = l.item_id.toLowerCase();
    const productId = variants.get(id);
    return productId ? { product_id: productId, variant_id: id, quantity: l.quantity } : { product_id: id, quantity: l.quantity };
  });
  if (o.lock) {
    // Orders' lock order: product rows, then the stock ledger, by product id.
    for (const id of [...new Set(resolved.map((r) => r.product_id))].sort()) {
      try {
        await lockedProduct(db, storeId, id);
        await lockStock(db, storeId, id);
      } catch (e) {
        if (!(e instanceof SvcError && e.status === 404)) throw e;
      }
    }
  }
  // All lines at once (two queries); only when one is refused, line by line to say which.
  const all = resolved.length ? await priceOne(db, storeId, resolved) : [];
  const priced: (PricedLine | null)[] = [];
  for (const [n, r] of resolved.entries()) {
    const p = Array.isArray(all) ? all[n] : await priceOne(db, storeId, [r]).then((x) => (Array.isArray(x) ? x[0] : x));
    if (p instanceof SvcError) {
      messages.push(
        err(
          p.status === 404 ? 'not_found' : 'invalid',
          p.status === 404 ? `No item '${state.line_items[n].item_id}' is for sale here.` : p.message,
          `$.line_items[${n}]`,
        ),
      );
      priced.push(null);
    } else priced.push(p);
  }
  const currencies = new Set(priced.flatMap((p) => (p ? [p.currency] : [])));
  const currency = currencies.size ? [...currencies][0] : settings.currency;
  priced.forEach((p, n) => {
    if (p && p.currency !== currency) {
      messages.push(err('invalid', `Item '${state.line_items[n].item_id}' is sold in ${p.currency}, the cart in ${currency}.`, `$.line_items[${n}]`));
      priced[n] = null;
    }
  });
  // Stock: units asked for per stock item (a product, or a variant) across lines.
  const wanted = new Map<string, number>();
  priced.forEach((p) => p && wanted.set(p.variant_id ?? p.product_id, (wanted.get(p.variant_id ?? p.product_id) ?? 0) + p.quantity));
  const onHand = new Map<string, number>();
  if (wanted.size)
    for (const row of await db.query<{ id: string; n: number }>(`SELECT s.id, ${variantStockSql('s.id')} AS n FROM unnest($1::uuid[]) AS s(id)`, [
      [...wanted.keys()],
    ]))
      onHand.set(row.id, Number(row.n));
  const titleOf = new Map(priced.flatMap((p) => (p ? [[p.variant_id ?? p.product_id, p.title] as const] : [])));
  const short = new Set<string>();
  priced.forEach((p, n) => {
    if (!p) return;
    const key = p.variant_id ?? p.product_id;
    const have = onHand.get(key) ?? 0;
    if ((wanted.get(key) ?? 0) > have && !short.has(key)) {
      short.add(key);
      messages.push(
        err(
          'out_of_stock',
          have ? `Only ${have} of '${titleOf.get(key) ?? key}' left; ${wanted.get(key)} asked.` : `'${titleOf.get(key) ?? key}' is out of stock.`,
          `$.line_items[${n}]`,
        ),
      );
    }
  });
  const customerId = state.buyer?.email ? ((await customerIdByEmail(db, storeId, state.buyer.email)) ?? null) : null;
  const live = priced.flatMap((p, n) => (p ? [{ p, n }] : []));
  // Codes apply in order; one that does not apply is dropped with a warning and the rest retried.
  let codes = [...state.discount_codes];
  const address = state.shipping_address ?? state.billing_address ?? null;
  let q;
  for (;;) {
    q = await quote(db, storeId, {
      lines: live.map(({ p }) => ({ product_id: p.product_id, amount_minor: p.amount_minor, tax_class: p.tax_class })),
      codes,
      customerId,
      currency,
      now: o.now,
      address: address && { country: address.country, region: address.region ?? null, postal_code: address.postal_code ?? null },
      pricesIncludeTax: settings.prices_include_tax,
      lock: o.lock,
    });
    if (q.ok) break;
    const index = state.discount_codes.findIndex((c) => c.toLowerCase() === q!.code.toLowerCase() && codes.includes(c));
    messages.push({
      type: 'warning',
      code: q.refusal.reason_code === 'unknown_code' ? 'discount_code_invalid' : warningCode(q.refusal.reason_code),
      content: `Discount code '${q.code}' does not apply: ${q.refusal.reason}`,
      path: `$.discount_codes[${index}]`,
      severity: 'low',
    });
    codes = codes.filter((_, i) => i !== q!.index);
  }
  const quoted = q.quote;
  const lines: SessionLine[] = state.line_items.map((l, n) => {
    const p = priced[n];
    const at = live.findIndex((x) => x.n === n);
    const key = p ? (p.variant_id ?? p.product_id) : '';
    const discount = at >= 0 ? quoted.lineDiscounts[at] : 0;
    const tax = at >= 0 ? quoted.lineTax[at].minor : 0;
    const subtotal = p?.amount_minor ?? 0;
    return {
      id: l.id,
      item_id: l.item_id,
      product_id: p?.product_id ?? l.item_id,
      variant_id: p?.variant_id ?? null,
      title: p?.title ?? l.item_id,
      sku: p?.sku ?? null,
      image_url: null,
      quantity: l.quantity,
      available: p ? (onHand.get(key) ?? 0) : 0,
      unit_price: p?.unit_price_minor ?? 0,
      subtotal,
      discount,
      tax,
      total: subtotal - discount + (settings.prices_include_tax ? 0 : tax),
      weight_grams: p?.weight_grams ?? null,
    };
  });
  const weight = lines.reduce((s, l) => s + (l.weight_grams ?? 0) * l.quantity, 0);
  const itemsTotal = quoted.subtotal - quoted.discountTotal;
  const { options, zoned } = state.shipping_address
    ? await shippingQuotes(db, storeId, {
        address: state.shipping_address,
        currency,
        weightGrams: weight,
        itemsMinor: itemsTotal,
        now: o.now,
        timezone: settings.timezone,
      })
    : { options: [], zoned: false };
  let optionId = state.shipping_option_id;
  if (optionId && !options.some((s) => s.id === optionId)) {
    messages.push(err('invalid', `Shipping option '${optionId}' is not offered for this address.`, '$.shipping_option_id', 'medium'));
    optionId = null;
  }
  // One option offered (or none chosen yet): the cheapest is chosen, as a shop preselects it.
  if (!optionId && options.length) optionId = [...options].sort((a, b) => a.amount - b.amount)[0].id;
  const shipping = options.find((s) => s.id === optionId)?.amount ?? 0;
  if (state.shipping_address && !options.length && zoned)
    messages.push(err('region_restricted', `The store does not ship to ${state.shipping_address.country}.`, '$.shipping_address.country'));
  return {
    currency,
    prices_include_tax: settings.prices_include_tax,
    lines,
    orderable: live.map(({ p }) => ({ product_id: p.product_id, variant_id: p.variant_id, quantity: p.quantity })),
    shipping_options: options,
    shipping_option_id: optionId,
    discounts: quoted.discounts.map((d) => ({ code: d.code, amount: d.amount_minor })),
    tax_lines: quoted.taxLines.map((t) => ({ name: t.name, percentage: t.percentage, amount: t.amount_minor })),
    totals: { subtotal: quoted.subtotal, discount: quoted.discountTotal, shipping, tax: quoted.taxTotal, total: quoted.total + shipping },
    messages,
    customer_id: customerId,
  };
}

/** coupons' refusal reasons in ACP's warning vocabulary. */
function warningCode(reason: string): string {
  if (reason === 'expired' || reason === 'not_started') return 'discount_code_expired';
  if (reason.includes('minimum')) return 'discount_code_minimum_not_met';
  if (reason.includes('limit')) return 'discount_code_usage_limit_reached';
  if (reason.includes('customer')) return 'discount_code_user_ineligible';
  return 'discount_code_invalid';
}
