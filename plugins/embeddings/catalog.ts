import { embeddingsProvider, metered, type Db, type JobCtx, type ProviderConfig } from '../../core/sdk';
import { hashOf, normalize, upsertEmbedding } from './store';

/** Products per step, and per embeddings request: one provider call embeds a step's changed texts. */
export const BATCH = 100;

interface Item {
  ref: string;
  text: string;
  product_id: string;
}

/** What a product is embedded as: its name, its description and its options' values. */
const productText = (p: any) =>
  [p.name, p.description, ...(p.options ?? []).map((o: any) => `${o.name}: ${(o.values ?? []).join(', ')}`)].filter(Boolean).join('\n');

/** The store's live products as texts to embed, read through products.list_products as this plugin. */
async function catalog(ctx: JobCtx): Promise<Item[]> {
  const items: Item[] = [];
  for (let after: string | undefined; ;) {
    const page = await ctx.call('products.list_products', { limit: 100, ...(after ? { starting_after: after } : {}) });
    for (const p of page.data) items.push({ ref: `product:${p.id}`, text: productText(p), product_id: p.id });
    if (!page.has_more || !page.data.length) break;
    after = page.data.at(-1)!.id;
  }
  return items;
}

/**
 * The index_catalog job: every live product embedded as `product:<id>`, BATCH at a time with its
 * progress; only products whose text (by hash) or model changed are sent to the provider, so a
 * run after a few edits re-embeds only those. Each batch's vectors are written in one transaction;
 * a failure leaves the batches before it written (a run again skips them).
 */
export async function indexCatalog(ctx: JobCtx) {
  const items = await catalog(ctx);
  const model = ctx.config.model as string;
  let embedded = 0;
  await ctx.progress(0, items.length);
  for (let i = 0; i < items.length; i += BATCH) {
    const batch = items.slice(i, i + BATCH);
    const kept = await ctx.db.query('SELECT ref, content_hash, model FROM embeddings WHERE store_id = $1 AND ref = ANY($2::text[])', [
      ctx.store.id,
      batch.map((b) => b.ref),
    ]);
    const same = new Set(kept.filter((k) => k.model === model).map((k) => `${k.ref}\u0000${k.content_hash}`));
    const changed = batch.filter((b) => !same.has(`${b.ref}\u0000${hashOf(b.text)}`));
    if (changed.length) {
      const provider = embeddingsProvider(ctx.config as ProviderConfig);
      const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
      const vectors = await metered(meter, provider.name, model, async () => {
        const r = await provider.embed(
          model,
          changed.map((c) => c.text),
          ctx.shutdown,
        );
        return { value: r.vectors.map(normalize), usage: r.usage };
      });
      await ctx.db.transaction(async (tx: Db) => {
        for (const [n, c] of changed.entries())
          await upsertEmbedding(
            tx,
            ctx.clock.now(),
            ctx.store.id,
            model,
            { ref: c.ref, text: c.text, metadata: { product_id: c.product_id } },
            vectors[n],
          );
      });
      embedded += changed.length;
    }
    await ctx.progress(Math.min(i + BATCH, items.length), items.length);
  }
  return { embedded, unchanged: items.length - embedded };
}
