/**
 * What orders use of tax: pricing an order (its discount codes through coupons, then tax per line)
 * and the tax ledger get_report reads. A plugin importing this declares `requires: ['tax']`.
 */
import { type Db, type Row } from '../../core/sdk';
import { applyCodes, mulDivHalfUp, percentScaled, type AppliedCode, type Refusal } from '../coupons/public';
import { rateFor } from './rates';

export interface QuoteLine {
  product_id: string;
  amount_minor: number;
  tax_class: string;
}
export interface Address {
  country: string;
  region?: string | null;
  postal_code?: string | null;
}
export interface TaxLine {
  rate_id: string;
  name: string;
  percentage: number;
  amount_minor: number;
  taxable_minor: number;
}
export interface Quote {
  subtotal: number;
  discounts: AppliedCode[];
  lineDiscounts: number[];
  discountTotal: number;
  lineTax: { minor: number; rate_id: string | null }[];
  taxLines: TaxLine[];
  taxTotal: number;
  total: number;
  pricesIncludeTax: boolean;
}

/**
 * The store's rates of one country, every tax class, as SQL for a statement that reads them with
 * other things (orders' first read, before any lock): an expression giving a JSON array of rates,
 * for quote's `rates`. `store` and `country` are placeholders.
 */
export const taxRatesSql = (store: string, country: string) =>
  `(SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'region', region, 'postal_code_prefix', postal_code_prefix,
      'percentage', percentage, 'tax_class', tax_class)), '[]')
    FROM tax_rates WHERE store_id = ${store} AND country = ${country})`;

/**
 * Tax per line on its amount after discounts, half up per line, at the line's rate (rates.ts
 * rateFor); `inclusive`: the amount already holds it (amount × p / (100 + p)). No address, no tax.
 * `known`: the rates of the address's country already read (taxRatesSql); else they are read here.
 */
export async function taxLines(
  db: Db,
  storeId: string,
  lines: { taxable_minor: number; tax_class: string }[],
  address: Address | null,
  inclusive: boolean,
  known?: Row[],
) {
  const lineTax = lines.map(() => ({ minor: 0, rate_id: null as string | null }));
  const byRate = new Map<string, TaxLine>();
  if (!address) return { lineTax, taxLines: [] as TaxLine[] };
  const classes = [...new Set(['standard', ...lines.map((l) => l.tax_class)])];
  const rates =
    known ??
    (await db.query('SELECT * FROM tax_rates WHERE store_id = $1 AND country = $2 AND tax_class = ANY($3::text[])', [
      storeId,
      address.country,
      classes,
    ]));
  if (!rates.length) return { lineTax, taxLines: [] as TaxLine[] };
  lines.forEach((l, i) => {
    const rate = rateFor(rates, l.tax_class, address);
    if (!rate) return;
    const p = percentScaled(rate.percentage);
    const minor = inclusive ? mulDivHalfUp(l.taxable_minor, p, 1_000_000n + p) : mulDivHalfUp(l.taxable_minor, p, 1_000_000n);
    lineTax[i] = { minor, rate_id: rate.id };
    const t = byRate.get(rate.id) ?? { rate_id: rate.id, name: rate.name, percentage: Number(rate.percentage), amount_minor: 0, taxable_minor: 0 };
    t.amount_minor += minor;
    // The base the percentage is of: net of the tax when prices include it.
    t.taxable_minor += inclusive ? l.taxable_minor - minor : l.taxable_minor;
    byRate.set(rate.id, t);
  });
  return { lineTax, taxLines: [...byRate.values()] };
}

/** What an order's money is worked out from (orders' priceOrder and tax's quote). */
export interface QuoteInput {
  lines: QuoteLine[];
  codes: readonly string[];
  customerId: string | null;
  currency: string;
  now: Date;
  address: Address | null;
  pricesIncludeTax: boolean;
  /** The store's rates of the address's country, when already read (taxRatesSql). */
  rates?: Row[];
}

/**
 * An order's money: `codes` applied in the order given (coupons; `lock` takes their row locks for
 * an order being placed), then tax per line on what is left, then the total: subtotal − discounts
 * + tax (tax not added when prices include it). A code that does not apply answers its refusal.
 */
export async function quote(
  db: Db,
  storeId: string,
  o: QuoteInput & { lock?: boolean },
): Promise<{ ok: true; quote: Quote } | { ok: false; index: number; code: string; refusal: Refusal }> {
  const subtotal = o.lines.reduce((s, l) => s + l.amount_minor, 0);
  const applied = await applyCodes(db, storeId, o.codes, {
    now: o.now,
    currency: o.currency,
    lines: o.lines,
    customerId: o.customerId,
    lock: o.lock,
  });
  if (!applied.ok) return { ok: false, index: applied.index, code: applied.code, refusal: applied.refusal };
  const discountTotal = applied.discounts.reduce((s, d) => s + d.amount_minor, 0);
  const tax = await taxLines(
    db,
    storeId,
    o.lines.map((l, i) => ({ taxable_minor: l.amount_minor - applied.lineDiscounts[i], tax_class: l.tax_class })),
    o.address,
    o.pricesIncludeTax,
    o.rates,
  );
  const taxTotal = tax.taxLines.reduce((s, t) => s + t.amount_minor, 0);
  return {
    ok: true,
    quote: {
      subtotal,
      discounts: applied.discounts,
      lineDiscounts: applied.lineDiscounts,
      discountTotal,
      lineTax: tax.lineTax,
      taxLines: tax.taxLines,
      taxTotal,
      total: subtotal - discountTotal + (o.pricesIncludeTax ? 0 : taxTotal),
      pricesIncludeTax: o.pricesIncludeTax,
    },
  };
}

/**
 * The ledger: what a placed order charged per rate, on its creation date, with its status. A
 * common table expression of the statement that inserts the order, which names its row `o` (its
 * id, store_id, currency, status, created_at); `param` adds a parameter and answers its
 * placeholder. None without tax lines.
 */
export function orderTaxCtes(taxLines: TaxLine[], param: (value: unknown) => string): string[] {
  if (!taxLines.length) return [];
  const rates = param(taxLines.map((t) => t.rate_id));
  const names = param(taxLines.map((t) => t.name));
  const taxable = param(taxLines.map((t) => t.taxable_minor));
  const tax = param(taxLines.map((t) => t.amount_minor));
  return [
    `tax_recorded AS (
       INSERT INTO tax_entries (id, store_id, order_id, rate_id, name, currency, order_status, taxable_minor, tax_minor, at)
       SELECT gen_random_uuid(), o.store_id, o.id, r, n, o.currency, o.status, t, x, o.created_at
       FROM o, unnest(${rates}::uuid[], ${names}::text[], ${taxable}::bigint[], ${tax}::bigint[]) AS u(r, n, t, x)
     )`,
  ];
}

/** Keeps the ledger's status in step with the order's (the report counts paid, fulfilled and completed ones). */
export async function setOrderTaxStatus(db: Db, storeId: string, orderId: string, status: string) {
  await db.query('UPDATE tax_entries SET order_status = $3 WHERE store_id = $1 AND order_id = $2', [storeId, orderId, status]);
}

/**
 * A refund takes back its share of the order's tax, on its own date: per rate, the refunded
 * fraction of the order's total (amount / total) of that rate's taxable amount and tax, half up.
 */
export async function recordRefundTax(
  db: Db,
  storeId: string,
  r: { orderId: string; refundId: string; amountMinor: number; orderTotalMinor: number; at: Date },
) {
  if (r.orderTotalMinor <= 0) return;
  const charged: Row[] = await db.query('SELECT * FROM tax_entries WHERE store_id = $1 AND order_id = $2 AND refund_id IS NULL', [
    storeId,
    r.orderId,
  ]);
  const share = (x: number) => -mulDivHalfUp(x, BigInt(r.amountMinor), BigInt(r.orderTotalMinor));
  for (const e of charged)
    await db.query(
      `INSERT INTO tax_entries (id, store_id, order_id, refund_id, rate_id, name, currency, order_status, taxable_minor, tax_minor, at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        storeId,
        r.orderId,
        r.refundId,
        e.rate_id,
        e.name,
        e.currency,
        e.order_status,
        share(Number(e.taxable_minor)),
        share(Number(e.tax_minor)),
        r.at,
      ],
    );
}
