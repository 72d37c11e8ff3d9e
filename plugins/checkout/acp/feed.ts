import { toMinor, type Ctx, type Db, type JobCtx } from '../../../core/sdk';
import { sellableProducts } from '../../products/public';
import { storeSettings } from '../../store/public';

/**
 * The product feed in ACP's feed format (schema.feed.json `Product {id, title, description,
 * url, variants[]}`, prices in minor units), one product per line (JSON Lines): what an agent's
 * feed ingests (OpenAI's file feed, ACP's Feed API upsert). A simple product is its own one variant.
 */
export async function feedLines(db: Db, storeId: string): Promise<{ text: string; count: number }> {
  const [products, settings] = await Promise.all([sellableProducts(db, storeId), storeSettings(db, storeId)]);
  const site = settings.website_url?.replace(/\/+$/, '');
  const lines = products.map((p) => {
    const currency = p.pricing_data.currency;
    const url = site ? `${site}/products/${p.id}` : undefined;
    const availability = (n: number) => ({ available: n > 0, status: n > 0 ? 'in_stock' : 'out_of_stock' });
    const variants = p.variants.length
      ? p.variants
          .filter((v) => v.status === 'active')
          .map((v) => ({
            id: v.id,
            title: `${p.name} - ${Object.values(v.options).join(' / ')}`,
            ...(url ? { url: `${url}?variant=${v.id}` } : {}),
            price: { amount: toMinor(v.price, currency, 'price'), currency },
            availability: availability(v.stock_quantity),
            variant_options: Object.entries(v.options).map(([name, value]) => ({ name, value })),
            ...(settings.contact_email || site ? { seller: { name: site ?? settings.contact_email! } } : {}),
          }))
      : [
          {
            id: p.id,
            title: p.name,
            ...(url ? { url } : {}),
            price: { amount: toMinor(p.pricing_data.retail, currency, 'price'), currency },
            ...(p.pricing_data.compare_at != null ? { list_price: { amount: toMinor(p.pricing_data.compare_at, currency, 'price'), currency } } : {}),
            availability: availability(p.stock_quantity),
          },
        ];
    return JSON.stringify({
      id: p.id,
      title: p.name,
      ...(p.description ? { description: { plain: p.description } } : {}),
      ...(url ? { url } : {}),
      variants,
    });
  });
  return { text: lines.length ? `${lines.join('\n')}\n` : '', count: lines.length };
}

/** GET STORE/checkout/feed: the feed now, as a download. */
export async function downloadFeed(ctx: Ctx) {
  const feed = await feedLines(ctx.db, ctx.store.id);
  return new Response(feed.text, {
    headers: {
      'Content-Type': 'application/jsonl; charset=utf-8',
      'Content-Disposition': 'attachment; filename="products.jsonl"',
      'X-Feed-Products': String(feed.count),
    },
  });
}

/**
 * The scheduled export (daily, once per cluster): a full snapshot for every store that takes ACP
 * checkouts, kept in checkout_feeds (the feed's contract is a full snapshot at least daily). Its job
 * is declared in actions.ts.
 */
export async function exportFeeds(ctx: JobCtx) {
  const stores = await ctx.db.query<{ store_id: string }>(`SELECT store_id FROM checkout_settings WHERE (acp->>'enabled')::boolean IS TRUE`);
  for (const { store_id } of stores) {
    const feed = await feedLines(ctx.db, store_id);
    await ctx.db.query(
      `INSERT INTO checkout_feeds (store_id, body, products, generated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (store_id) DO UPDATE SET body = $2, products = $3, generated_at = $4`,
      [store_id, feed.text, feed.count, ctx.clock.now()],
    );
  }
}
