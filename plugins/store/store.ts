import type { Static } from '@sinclair/typebox';
import { checkCurrency, errors, fail, iso, jsonParam, PLAN_LIMITS, setStoreHostnames, storeHostnames, type Ctx, type Plan } from '../../core/sdk';
import { settingsFromRow } from './public';
import type { SettingsUpdate } from './schemas';

/** IANA zone names as the runtime knows them, plus UTC (which some lists leave out). */
const ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);

export function checkTimezone(tz: string, param: string) {
  if (!ZONES.has(tz))
    throw errors.validation(`Invalid ${param}: '${tz}' is not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York).`, param);
  return tz;
}

async function storeView(ctx: Ctx) {
  const [r] = await ctx.db.query(
    `SELECT s.id, s.name, s.plan, s.created_at, t.store_id AS has_settings, t.currency, t.timezone, t.address, t.contact_email, t.website_url,
       t.order_number_prefix, t.invoice_prefix, t.prices_include_tax, t.phone_number, t.updated_at
     FROM stores s LEFT JOIN store_settings t ON t.store_id = s.id WHERE s.id = $1`,
    [ctx.store.id],
  );
  return {
    object: 'store' as const,
    id: r.id,
    name: r.name,
    plan: r.plan,
    settings: { ...settingsFromRow(r.has_settings ? r : undefined), hostnames: await storeHostnames(ctx.db, ctx.store.id) },
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at ?? r.created_at),
  };
}

export const getStore = (ctx: Ctx) => storeView(ctx);

/** PATCH semantics: a field left out keeps its value; null clears address, contact_email, website_url, phone_number. */
export async function updateSettings(ctx: Ctx, input: Static<typeof SettingsUpdate>) {
  if (input.currency !== undefined) checkCurrency(input.currency, 'currency');
  if (input.timezone !== undefined) checkTimezone(input.timezone, 'timezone');
  const now = ctx.clock.now();
  // The name, and the time zone the core reads beside the store (provider usage days: core/025).
  if (input.name !== undefined || input.timezone !== undefined)
    await ctx.db.query('UPDATE stores SET name = coalesce($2, name), timezone = coalesce($3, timezone) WHERE id = $1', [
      ctx.store.id,
      input.name ?? null,
      input.timezone ?? null,
    ]);
  // One upsert: the row is made on the first update with the defaults for whatever was not sent.
  await ctx.db.query(
    `INSERT INTO store_settings AS t (store_id, currency, timezone, address, contact_email, website_url, order_number_prefix, invoice_prefix, prices_include_tax, updated_at, phone_number)
     VALUES ($1, coalesce($2, 'USD'), coalesce($3, 'UTC'), $4::text::jsonb, $5, $6, coalesce($7, ''), coalesce($8, 'INV-'), coalesce($9, false), $10, $14)
     ON CONFLICT (store_id) DO UPDATE SET
       currency = coalesce($2, t.currency), timezone = coalesce($3, t.timezone),
       address = CASE WHEN $11 THEN $4::text::jsonb ELSE t.address END,
       contact_email = CASE WHEN $12 THEN $5 ELSE t.contact_email END,
       website_url = CASE WHEN $13 THEN $6 ELSE t.website_url END,
       order_number_prefix = coalesce($7, t.order_number_prefix), invoice_prefix = coalesce($8, t.invoice_prefix),
       prices_include_tax = coalesce($9, t.prices_include_tax), updated_at = $10,
       phone_number = CASE WHEN $15 THEN $14 ELSE t.phone_number END`,
    [
      ctx.store.id,
      input.currency ?? null,
      input.timezone ?? null,
      jsonParam(input.address),
      input.contact_email ?? null,
      input.website_url ?? null,
      input.order_number_prefix ?? null,
      input.invoice_prefix ?? null,
      input.prices_include_tax ?? null,
      now,
      input.address !== undefined,
      input.contact_email !== undefined,
      input.website_url !== undefined,
      input.phone_number ?? null,
      input.phone_number !== undefined,
    ],
  );
  if (input.hostnames !== undefined) {
    const set = await setStoreHostnames(ctx.db, ctx.store.id, input.hostnames, now);
    if (set.taken) throw fail('hostname_taken', `Another store of this instance already claims '${set.taken}'.`, 'hostnames');
  }
  const store = await storeView(ctx);
  ctx.emit('store.settings_updated', store);
  return store;
}

export async function getPlan(ctx: Ctx) {
  const plan = ctx.store.plan as Plan;
  return { object: 'plan' as const, name: plan, limits: { ...(PLAN_LIMITS[plan] ?? PLAN_LIMITS.free) } };
}
