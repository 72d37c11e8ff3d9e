import type { Static } from '@sinclair/typebox';
import { errors, fail, fromMinor, listPage, rowOr404, stamps, toMinor, type Ctx, type Row } from '../../core/sdk';
import { storeSettings } from '../store/public';
import type { ShippingZone, ZoneCreate, ZoneQuery, ZoneUpdate } from './zone-schemas';

type MethodIn = Static<typeof ZoneCreate>['methods'][number];

function toZone(r: Row): Static<typeof ShippingZone> {
  const m = (minor: number | null) => (minor == null ? null : fromMinor(minor, r.currency));
  return {
    object: 'shipping_zone',
    id: r.id,
    name: r.name,
    countries: r.countries,
    regions: r.regions,
    postal_code_prefixes: r.postal_code_prefixes,
    rest_of_world: r.rest_of_world,
    currency: r.currency,
    methods: (r.methods as Row[]).map((x) => ({
      id: x.id,
      name: x.name,
      rate_type: x.rate_type,
      amount: m(x.amount_minor),
      weight_rates: (x.weight_rates as Row[]).map((w) => ({ up_to_grams: w.up_to_grams, amount: fromMinor(w.amount_minor, r.currency) })),
      free_over_amount: m(x.free_over_minor),
      min_days: x.min_days,
      max_days: x.max_days,
    })),
    ...stamps(r),
  };
}

/** Methods as stored (minor units), checked: a flat rate has an amount, a by-weight one its bands, min ≤ max days. */
function methodsOf(methods: MethodIn[], currency: string, keep: Row[] = []) {
  return methods.map((x, n) => {
    const p = `methods.${n}`;
    if (x.rate_type === 'flat' && x.amount === undefined) throw errors.validation(`Missing ${p}.amount: a flat rate needs its price.`, `${p}.amount`);
    if (x.rate_type === 'by_weight' && !x.weight_rates)
      throw errors.validation(`Missing ${p}.weight_rates: a by_weight rate needs its bands.`, `${p}.weight_rates`);
    if (x.min_days !== undefined && x.max_days !== undefined && x.min_days > x.max_days)
      throw errors.validation(`Invalid ${p}.max_days: it is less than min_days.`, `${p}.max_days`);
    return {
      // A method keeps its id across updates when its name stays: sessions that chose it still find it.
      id: keep.find((k) => k.name === x.name)?.id ?? crypto.randomUUID(),
      name: x.name,
      rate_type: x.rate_type,
      amount_minor: x.rate_type === 'flat' ? toMinor(x.amount!, currency, `${p}.amount`) : null,
      weight_rates:
        x.rate_type === 'by_weight'
          ? x.weight_rates!.map((w, i) => ({
              up_to_grams: w.up_to_grams,
              amount_minor: toMinor(w.amount, currency, `${p}.weight_rates.${i}.amount`),
            }))
          : [],
      free_over_minor: x.free_over_amount === undefined ? null : toMinor(x.free_over_amount, currency, `${p}.free_over_amount`),
      min_days: x.min_days ?? null,
      max_days: x.max_days ?? null,
    };
  });
}

/** A zone names countries, or is the rest of the world (one per store), never both or neither. */
async function checkShape(ctx: Ctx, z: { countries: string[]; rest_of_world: boolean }, id?: string) {
  if (z.rest_of_world && z.countries.length)
    throw errors.validation('Invalid countries: a rest_of_world zone names no countries (it covers those no other zone names).', 'countries');
  if (!z.rest_of_world && !z.countries.length) throw errors.validation('Missing countries: name them, or set rest_of_world: true.', 'countries');
  if (z.rest_of_world) {
    const [other] = await ctx.db.query('SELECT id FROM shipping_zones WHERE store_id = $1 AND rest_of_world AND id IS DISTINCT FROM $2 FOR UPDATE', [
      ctx.store.id,
      id ?? null,
    ]);
    if (other) throw fail('rest_of_world_zone_exists', `Zone ${other.id} already covers the rest of the world.`, 'rest_of_world');
  }
}

export async function createZone(ctx: Ctx, input: Static<typeof ZoneCreate>) {
  const currency = (await storeSettings(ctx.db, ctx.store.id)).currency;
  const z = { countries: input.countries ?? [], rest_of_world: input.rest_of_world ?? false };
  await checkShape(ctx, z);
  const now = ctx.clock.now();
  const [r] = await ctx.db.query(
    `INSERT INTO shipping_zones (id, store_id, name, countries, regions, postal_code_prefixes, rest_of_world, currency, methods, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $9) RETURNING *`,
    [
      ctx.store.id,
      input.name,
      z.countries,
      input.regions ?? [],
      input.postal_code_prefixes ?? [],
      z.rest_of_world,
      currency,
      JSON.stringify(methodsOf(input.methods, currency)),
      now,
    ],
  );
  return toZone(r);
}

const zoneRow = (ctx: Ctx, id: string, lock = false) =>
  rowOr404(ctx.db, { table: 'shipping_zones', storeId: ctx.store.id, id, noun: 'shipping zone', lock: lock ? 'FOR UPDATE' : undefined });

export const getZone = async (ctx: Ctx, id: string) => toZone(await zoneRow(ctx, id));

export const listZones = (ctx: Ctx, input: Static<typeof ZoneQuery>) =>
  listPage(ctx, { table: 'shipping_zones', path: '/shipping/zones', input, filters: {} }, (rows) => rows.map(toZone));

export async function updateZone(ctx: Ctx, input: Static<typeof ZoneUpdate>) {
  const cur = await zoneRow(ctx, input.id, true);
  const z = { countries: input.countries ?? cur.countries, rest_of_world: input.rest_of_world ?? cur.rest_of_world };
  await checkShape(ctx, z, cur.id);
  const methods = input.methods ? methodsOf(input.methods, cur.currency, cur.methods) : cur.methods;
  const [r] = await ctx.db.query(
    `UPDATE shipping_zones SET name = $3, countries = $4, regions = $5, postal_code_prefixes = $6, rest_of_world = $7, methods = $8::text::jsonb, updated_at = $9
     WHERE store_id = $1 AND id = $2 RETURNING *`,
    [
      ctx.store.id,
      cur.id,
      input.name ?? cur.name,
      z.countries,
      input.regions ?? cur.regions,
      input.postal_code_prefixes ?? cur.postal_code_prefixes,
      z.rest_of_world,
      JSON.stringify(methods),
      ctx.clock.now(),
    ],
  );
  return toZone(r);
}

export async function deleteZone(ctx: Ctx, id: string) {
  const cur = await zoneRow(ctx, id, true);
  await ctx.db.query('DELETE FROM shipping_zones WHERE store_id = $1 AND id = $2', [ctx.store.id, cur.id]);
  return { id: cur.id, object: 'shipping_zone', deleted: true };
}
