/**
 * UCP catalog search and lookup (catalog/search.md, catalog/lookup.md) over svc's products: active
 * products only, read through products' own actions (so another store's ids are simply not found).
 * A UCP product id is svc's product id; a variant id is svc's variant id, or the product id for a
 * simple product (its one implicit variant), which is what a checkout's `item.id` takes.
 */
import type { Ctx } from '../../../core/sdk';
import { decimalsOf } from '../../../core/sdk';
import { ucpFail } from './errors';

type Json = Record<string, any>;

const minor = (amount: number, currency: string) => Math.round(amount * 10 ** decimalsOf(currency));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_PAGE = 50;

/** An svc product (products.get_product's shape) as a UCP product. */
export function toUcpProduct(p: Json): Json {
  const cur = p.pricing_data.currency as string;
  const price = (n: number) => ({ amount: minor(n, cur), currency: cur });
  const description = { plain: p.description ?? '' };
  const live = (p.variants as Json[]).filter((v) => v.status === 'active');
  const variants = live.length
    ? live.map((v) => ({
        id: v.id,
        ...(v.sku ? { sku: v.sku } : {}),
        title: Object.values(v.options).join(' / ') || p.name,
        description,
        price: price(v.price),
        availability: { available: v.stock_quantity > 0 },
        options: Object.entries(v.options).map(([name, label]) => ({ name, label })),
      }))
    : [
        {
          id: p.id,
          ...(p.sku ? { sku: p.sku } : {}),
          title: p.name,
          description,
          price: price(p.pricing_data.retail),
          availability: { available: p.stock_quantity > 0 },
        },
      ];
  const amounts = variants.map((v) => v.price.amount);
  return {
    id: p.id,
    title: p.name,
    description,
    price_range: { min: { amount: Math.min(...amounts), currency: cur }, max: { amount: Math.max(...amounts), currency: cur } },
    ...(p.options?.length ? { options: p.options.map((o: Json) => ({ name: o.name, values: o.values.map((label: string) => ({ label })) })) } : {}),
    variants,
  };
}

/** POST /catalog/search: `query` over names and SKUs, `pagination.limit` and `cursor` (the last product's id). */
export async function searchCatalog(ctx: Ctx, body: Json): Promise<Json> {
  const query = typeof body.query === 'string' ? body.query.trim().slice(0, 200) : undefined;
  const limit = Math.min(MAX_PAGE, Math.max(1, Number(body.pagination?.limit) || 10));
  const cursor = typeof body.pagination?.cursor === 'string' && UUID.test(body.pagination.cursor) ? body.pagination.cursor : undefined;
  const page = await ctx.call('products.list_products', {
    status: 'active',
    limit,
    ...(query ? { q: query } : {}),
    ...(cursor ? { starting_after: cursor } : {}),
  });
  const products = (page.data as Json[]).map(toUcpProduct);
  return {
    products,
    pagination: { has_next_page: page.has_more, ...(page.has_more && products.length ? { cursor: products[products.length - 1].id } : {}) },
  };
}

/** One product by its id, or by one of its variants' ids; undefined when it is not a live product. */
async function productByAnyId(ctx: Ctx, id: string): Promise<Json | undefined> {
  if (!UUID.test(id)) return undefined;
  const get = (pid: string) =>
    ctx.call('products.get_product', { id: pid }).then(
      (p: Json) => (p.status === 'active' ? p : undefined),
      () => undefined,
    );
  const direct = await get(id);
  if (direct) return direct;
  // A variant id: the variant list names its product.
  const page = await ctx.call('products.list_products', { status: 'active', limit: 100 });
  return (page.data as Json[]).find((p) => (p.variants as Json[]).some((v) => v.id === id));
}

/** POST /catalog/lookup: every id resolved (product or variant), with `inputs` correlating each variant to the ids that found it. */
export async function lookupCatalog(ctx: Ctx, body: Json): Promise<Json> {
  if (!Array.isArray(body.ids) || !body.ids.length || body.ids.some((i: unknown) => typeof i !== 'string')) {
    throw ucpFail('invalid_request', 'ids is required: a non-empty array of product or variant ids.');
  }
  const ids = [...new Set(body.ids as string[])].slice(0, MAX_PAGE);
  const found = new Map<string, Json>();
  const messages: Json[] = [];
  for (const id of ids) {
    const p = await productByAnyId(ctx, id);
    if (!p) {
      messages.push({ type: 'warning', code: 'not_found', path: `$.ids[${ids.indexOf(id)}]`, content: `No product or variant ${id}.` });
      continue;
    }
    const ucp = found.get(p.id) ?? toUcpProduct(p);
    found.set(p.id, ucp);
    for (const v of ucp.variants as Json[]) {
      const match = id === p.id ? 'product' : v.id === id ? 'variant' : undefined;
      if (!match) continue;
      v.inputs = [...(v.inputs ?? []), { id, match: match === 'variant' ? 'exact' : 'featured' }];
    }
  }
  // Every variant of a returned product carries `inputs` (lookup_variant requires it).
  for (const p of found.values()) for (const v of p.variants as Json[]) v.inputs ??= [{ id: p.id, match: 'featured' }];
  return { products: [...found.values()], ...(messages.length ? { messages } : {}) };
}

/** POST /catalog/product: one product in full. */
export async function getCatalogProduct(ctx: Ctx, body: Json): Promise<Json | undefined> {
  if (typeof body.id !== 'string' || !body.id) throw ucpFail('invalid_request', 'id is required: a product or variant id.');
  const p = await productByAnyId(ctx, body.id);
  return p ? { product: toUcpProduct(p) } : undefined;
}
