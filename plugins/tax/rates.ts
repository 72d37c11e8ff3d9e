import type { Static } from '@sinclair/typebox';
import { errors, fail, listPage, rowOr404, setClause, stamps, unique, type Ctx, type Row } from '../../core/sdk';
import type { RateCreate, RateQuery, RateUpdate } from './schemas';

export const toRate = (r: Row) => ({
  object: 'tax_rate' as const,
  id: r.id,
  name: r.name,
  country: r.country,
  region: r.region,
  postal_code_prefix: r.postal_code_prefix,
  percentage: Number(r.percentage),
  tax_class: r.tax_class,
  ...stamps(r),
});

/** Postal codes and prefixes compared without spaces or hyphens, in capitals: "sw1a 1aa" starts with "SW1". */
export const postalKey = (s: string) => s.replace(/[\s-]/g, '').toUpperCase();

const row = (ctx: Ctx, id: string, lock?: 'FOR UPDATE') =>
  rowOr404(ctx.db, { table: 'tax_rates', storeId: ctx.store.id, id, noun: 'tax rate', lock });

const samePlace = (name: string) => () =>
  fail(
    'rate_exists',
    `Another rate of this store already covers this place and tax class ('${name}' would stack with it): rates never stack; change that one.`,
    'country',
  );

function checkPercentage(p: number | undefined) {
  if (p !== undefined && Math.round(p * 10_000) / 10_000 !== p)
    throw errors.validation('Invalid percentage: at most 4 decimal places.', 'percentage');
}

export const getRate = async (ctx: Ctx, id: string) => toRate(await row(ctx, id));

export const listRates = (ctx: Ctx, input: Static<typeof RateQuery>) =>
  listPage(
    ctx,
    { table: 'tax_rates', path: '/tax/rates', input, filters: { 'country = $': input.country, 'tax_class = $': input.tax_class } },
    (rows) => rows.map(toRate),
  );

export async function createRate(ctx: Ctx, i: Static<typeof RateCreate>) {
  checkPercentage(i.percentage);
  const now = ctx.clock.now();
  const [r] = await unique(
    ctx.db.query(
      `INSERT INTO tax_rates (id, store_id, name, country, region, postal_code_prefix, percentage, tax_class, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
      [
        ctx.store.id,
        i.name,
        i.country,
        i.region ?? null,
        i.postal_code_prefix ? postalKey(i.postal_code_prefix) : null,
        i.percentage,
        i.tax_class ?? 'standard',
        now,
      ],
    ),
    { tax_rates_store_place: samePlace(i.name) },
  );
  const rate = toRate(r);
  ctx.emit('tax_rate.created', rate);
  return rate;
}

/** Orders placed before keep the tax they were charged (their tax lines are copies); new ones use the new rate. */
export async function updateRate(ctx: Ctx, i: Static<typeof RateUpdate>) {
  checkPercentage(i.percentage);
  const cur = await row(ctx, i.id, 'FOR UPDATE');
  const set = setClause(
    {
      name: i.name,
      country: i.country,
      region: i.region,
      postal_code_prefix:
        i.postal_code_prefix === undefined || i.postal_code_prefix === null ? i.postal_code_prefix : postalKey(i.postal_code_prefix),
      percentage: i.percentage,
      tax_class: i.tax_class,
      updated_at: ctx.clock.now(),
    },
    { after: 2 },
  );
  const [r] = await unique(
    ctx.db.query(`UPDATE tax_rates SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [ctx.store.id, cur.id, ...set.params]),
    { tax_rates_store_place: samePlace(i.name ?? cur.name) },
  );
  const rate = toRate(r);
  ctx.emit('tax_rate.updated', rate);
  return rate;
}

export async function deleteRate(ctx: Ctx, id: string) {
  const cur = await row(ctx, id, 'FOR UPDATE');
  await ctx.db.query('DELETE FROM tax_rates WHERE store_id = $1 AND id = $2', [ctx.store.id, cur.id]);
  ctx.emit('tax_rate.deleted', toRate(cur));
  return { id: cur.id, object: 'tax_rate', deleted: true };
}

/**
 * The rate for a line of `taxClass` shipped to `address`, among the store's rates of that
 * country: the most specific that matches (longest postal prefix, then one naming the region,
 * then the country's own). A class with no rate there is taxed at the place's standard rate.
 */
export function rateFor(rates: Row[], taxClass: string, address: { region?: string | null; postal_code?: string | null }): Row | undefined {
  const postal = address.postal_code ? postalKey(address.postal_code) : '';
  const region = address.region?.trim().toUpperCase() ?? '';
  const best = (cls: string) =>
    rates
      .filter((r) => r.tax_class === cls)
      .filter((r) => !r.region || r.region.toUpperCase() === region)
      .filter((r) => !r.postal_code_prefix || postal.startsWith(r.postal_code_prefix))
      .sort((a, b) => (b.postal_code_prefix?.length ?? 0) - (a.postal_code_prefix?.length ?? 0) || Number(!!b.region) - Number(!!a.region))[0];
  return best(taxClass) ?? (taxClass === 'standard' ? undefined : best('standard'));
}
