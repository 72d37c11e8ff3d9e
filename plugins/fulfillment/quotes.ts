import type { Db, Row } from '../../core/sdk';

/** A shipping option a checkout offers: one method of the zone the address falls in, priced. */
export interface ShippingQuote {
  id: string;
  zone_id: string;
  title: string;
  amount: number;
  min_days: number | null;
  max_days: number | null;
  earliest_delivery_time: string | null;
  latest_delivery_time: string | null;
}

interface Method {
  id: string;
  name: string;
  rate_type: 'flat' | 'by_weight';
  amount_minor: number | null;
  weight_rates: { up_to_grams: number; amount_minor: number }[];
  free_over_minor: number | null;
  min_days: number | null;
  max_days: number | null;
}

export const shippingZoneCount = async (db: Db, storeId: string) =>
  Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM shipping_zones WHERE store_id = $1', [storeId]))[0].n);

/** Whether a zone names this address: its country, and its regions and postal prefixes when it lists any. */
function covers(z: Row, a: { country: string; region?: string | null; postal_code?: string | null }) {
  if (!(z.countries as string[]).includes(a.country)) return false;
  const regions = z.regions as string[];
  if (regions.length && !regions.some((r) => r.toLowerCase() === (a.region ?? '').toLowerCase())) return false;
  const prefixes = z.postal_code_prefixes as string[];
  const postal = (a.postal_code ?? '').replace(/\s/g, '').toUpperCase();
  return !prefixes.length || prefixes.some((p) => postal.startsWith(p.replace(/\s/g, '').toUpperCase()));
}

/** The weekday (0 Sunday) of an instant in a timezone. */
function weekday(at: Date, timeZone: string) {
  const name = new Intl.DateTimeFormat('en-US', { weekday: 'short', timeZone }).format(at);
  return ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(name);
}

/** `now` plus `days` business days (Monday to Friday in the store's timezone). */
export function addBusinessDays(now: Date, days: number, timeZone: string): Date {
  let at = now;
  let left = days;
  while (left > 0) {
    at = new Date(at.getTime() + 86_400_000);
    const d = weekday(at, timeZone);
    if (d !== 0 && d !== 6) left--;
  }
  return at;
}

/**
 * The options for an address (`zoned`: the store has zones at all, so an address none covers is
 * not shipped to): the methods of the first zone (oldest first) naming its country
 * (regions and postal prefixes narrowing), else of the rest-of-the-world zone; by-weight methods
 * take the first band holding the weight (none: not offered); free over an amount of the items.
 */
export async function shippingQuotes(
  db: Db,
  storeId: string,
  o: {
    address: { country: string; region?: string | null; postal_code?: string | null };
    currency: string;
    weightGrams: number;
    itemsMinor: number;
    now: Date;
    timezone: string;
  },
): Promise<{ options: ShippingQuote[]; zoned: boolean }> {
  const zones = await db.query('SELECT * FROM shipping_zones WHERE store_id = $1 ORDER BY seq', [storeId]);
  const zone = zones.find((z) => !z.rest_of_world && covers(z, o.address)) ?? zones.find((z) => z.rest_of_world);
  if (!zone || zone.currency !== o.currency) return { options: [], zoned: zones.length > 0 };
  const out: ShippingQuote[] = [];
  for (const m of zone.methods as Method[]) {
    let amount = m.rate_type === 'flat' ? Number(m.amount_minor ?? 0) : undefined;
    if (m.rate_type === 'by_weight') {
      const band = [...m.weight_rates].sort((a, b) => a.up_to_grams - b.up_to_grams).find((b) => o.weightGrams <= b.up_to_grams);
      if (!band) continue;
      amount = Number(band.amount_minor);
    }
    if (m.free_over_minor != null && o.itemsMinor >= Number(m.free_over_minor)) amount = 0;
    out.push({
      id: m.id,
      zone_id: zone.id,
      title: m.name,
      amount: amount ?? 0,
      min_days: m.min_days,
      max_days: m.max_days,
      earliest_delivery_time: m.min_days == null ? null : addBusinessDays(o.now, m.min_days, o.timezone).toISOString(),
      latest_delivery_time: m.max_days == null ? null : addBusinessDays(o.now, m.max_days, o.timezone).toISOString(),
    });
  }
  return { options: out, zoned: true };
}
