/**
 * The three rankings of discovery. Each scores candidate products, then keeps the offerable ones
 * (active, not archived, in stock unless asked) that are not the product asked about.
 */
import { errors, type Ctx } from '../../core/sdk';
import { sharedCollectionCounts } from '../collections/public';
import { coPurchaseCounts, productsBoughtBy, unitsByAge } from '../orders/public';
import { liveProducts, offerableProducts, productsIn } from '../products/public';
import { customerIdIn } from '../customers/public';

interface Options {
  limit?: number;
  include_out_of_stock?: boolean;
}

/** Highest score first, then the name and id so equal scores keep one order. */
async function ranked(ctx: Ctx, scores: Map<string, number>, exclude: Set<string>, opts: Options) {
  const ids = [...scores.keys()].filter((id) => !exclude.has(id) && scores.get(id)! > 0);
  const products = await offerableProducts(ctx.db, ctx.store.id, { ids, includeOutOfStock: opts.include_out_of_stock });
  const data = [...products.values()]
    .map((product) => ({ product_id: product.id, score: Math.round(scores.get(product.id)! * 10000) / 10000, product }))
    .sort((a, b) => b.score - a.score || a.product.name.localeCompare(b.product.name) || a.product_id.localeCompare(b.product_id));
  const limit = opts.limit ?? 10;
  return { object: 'list' as const, data: data.slice(0, limit), has_more: data.length > limit };
}

async function productOr404(ctx: Ctx, id: string) {
  if (!(await productsIn(ctx.db, ctx.store.id, [id])).size) throw errors.notFound(`product: '${id}'`, 'product_id');
  return id.toLowerCase();
}

export async function recommendations(ctx: Ctx, input: Options & { product_id?: string; customer_id?: string }) {
  if (!input.product_id && !input.customer_id) throw errors.validation('Give product_id, customer_id or both.', 'product_id');
  const seeds: string[] = [];
  const exclude = new Set<string>();
  if (input.product_id) {
    const id = await productOr404(ctx, input.product_id);
    seeds.push(id);
    exclude.add(id);
  }
  if (input.customer_id) {
    const customer = await customerIdIn(ctx.db, ctx.store.id, input.customer_id);
    if (!customer) throw errors.notFound(`customer: '${input.customer_id}'`, 'customer_id');
    // What they already bought is never offered again, and seeds what is.
    for (const id of await productsBoughtBy(ctx.db, ctx.store.id, customer)) {
      if (!input.product_id) seeds.push(id);
      exclude.add(id);
    }
  }
  return ranked(ctx, await coPurchaseCounts(ctx.db, ctx.store.id, seeds), exclude, input);
}

/** Weights of similar_products: a shared collection, a shared metadata entry, the price band. */
const COLLECTION = 3;
const METADATA = 2;
const PRICE_BAND = 1;
const BAND = 0.3;

export async function similar(ctx: Ctx, input: Options & { product_id: string }) {
  const id = await productOr404(ctx, input.product_id);
  const self = (await liveProducts(ctx.db, ctx.store.id, [id])).get(id)!;
  const shared = await sharedCollectionCounts(ctx.db, ctx.store.id, id);
  const all = await offerableProducts(ctx.db, ctx.store.id, { includeOutOfStock: input.include_out_of_stock });
  const price = self.pricing_data.retail;
  const scores = new Map<string, number>();
  for (const p of all.values()) {
    if (p.id === id) continue;
    let score = (shared.get(p.id) ?? 0) * COLLECTION;
    for (const [k, v] of Object.entries(self.metadata)) if (p.metadata[k] === v) score += METADATA;
    // The band is a similarity of its own only in the same currency.
    const q = p.pricing_data.retail;
    if (p.pricing_data.currency === self.pricing_data.currency && q >= price * (1 - BAND) && q <= price * (1 + BAND)) score += PRICE_BAND;
    scores.set(p.id, score);
  }
  return ranked(ctx, scores, new Set([id]), input);
}

const WINDOW_DAYS = 30;
const HALF_LIFE_DAYS = 7;

export async function trending(ctx: Ctx, input: Options) {
  const scores = new Map<string, number>();
  for (const r of await unitsByAge(ctx.db, ctx.store.id, ctx.clock.now(), WINDOW_DAYS))
    scores.set(r.product_id, (scores.get(r.product_id) ?? 0) + r.units * 0.5 ** (r.age / HALF_LIFE_DAYS));
  return ranked(ctx, scores, new Set(), input);
}
