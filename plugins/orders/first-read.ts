import type { Db, Row } from '../../core/sdk';
import { customerGroupsSql, isCustomerId } from '../customers/public';
import { settingsFromRow, storeSettingsSql, type StoreSettings } from '../store/public';
import { taxRatesSql } from '../tax/public';
import { groupPricesSql, type GroupPrice } from '../wholesale/public';

export interface FirstRead {
  settings: StoreSettings;
  /** The order's customer with its groups; null: the order names none; undefined: no such customer here. */
  customer: { id: string; tags: string[] } | null | undefined;
  /** The group prices of the customer's groups for the ordered products. */
  groupPrices: GroupPrice[];
  /** The store's tax rates of `country`; undefined when the order ships nowhere. */
  taxRates: Row[] | undefined;
}

/**
 * What a new order reads before it locks anything, in one statement: the store's settings and,
 * when the order names them, its customer (with the tags wholesale reads as groups), those groups'
 * prices of the ordered products and the tax rates of the country it ships to. Each part is its
 * owner's SQL (their public.ts). Read here, none of it adds a round trip to the time the order
 * holds its products' stock locks, which orders of the same products wait for.
 */
export async function firstRead(db: Db, storeId: string, o: { customerId?: string; productIds: string[]; country?: string }): Promise<FirstRead> {
  // A malformed id names no customer here: the order is 404 before anything is read.
  if (o.customerId !== undefined && !isCustomerId(o.customerId))
    return { settings: settingsFromRow(null), customer: undefined, groupPrices: [], taxRates: undefined };
  const params: unknown[] = [storeId];
  const param = (v: unknown) => `$${params.push(v)}`;
  const columns = [`${storeSettingsSql('$1')} AS settings`];
  let customer = '';
  if (o.customerId !== undefined) {
    customer = `WITH customer AS (${customerGroupsSql('$1', param(o.customerId))}) `;
    columns.push('(SELECT row_to_json(customer) FROM customer) AS customer');
    columns.push(`${groupPricesSql('$1', '(SELECT tags FROM customer)', param(o.productIds))} AS group_prices`);
  }
  if (o.country !== undefined) columns.push(`${taxRatesSql('$1', param(o.country))} AS tax_rates`);
  const [r] = await db.query(`${customer}SELECT ${columns.join(', ')}`, params);
  return {
    settings: settingsFromRow(r.settings),
    customer: o.customerId === undefined ? null : (r.customer ?? undefined),
    groupPrices: r.group_prices ?? [],
    taxRates: r.tax_rates ?? undefined,
  };
}
