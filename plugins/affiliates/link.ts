import { type Ctx } from '../../core/sdk';
import { storeSettings } from '../store/public';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = () => new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });

/**
 * The public affiliate link `/r/<store id>/<code>`: counts a click (one statement, no
 * credential) and redirects to the store's website_url with `?ref=<code>`, which the shop's
 * backend passes on to attribute_order. An unknown store or code, or a store with no
 * website_url, is a 404 page.
 */
export async function follow(ctx: Ctx, storeId: string, code: string): Promise<Response> {
  if (!UUID.test(storeId) || code.length > 50) return notFound();
  const { website_url } = await storeSettings(ctx.db, storeId);
  if (!website_url) return notFound();
  const counted = ctx.http?.request.method !== 'HEAD';
  const [aff] = await ctx.db.query<{ code: string }>(
    `UPDATE affiliates SET clicks = clicks + CASE WHEN $3 THEN 1 ELSE 0 END WHERE store_id = $1 AND lower(code) = lower($2) RETURNING code`,
    [storeId, code, counted],
  );
  if (!aff) return notFound();
  const to = new URL(website_url);
  to.searchParams.set('ref', aff.code);
  return new Response(null, { status: 302, headers: { Location: to.toString(), 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });
}
