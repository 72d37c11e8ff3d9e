import { Type } from '@sinclair/typebox';
import {
  embeddingsProvider,
  errors,
  iso,
  metered,
  SvcError,
  Uuid,
  type Ctx,
  type Db,
  type JobDeps,
  type ProviderConfig,
  type Row,
} from '../../core/sdk';
import { hashOf, normalize, upsertEmbedding } from './store';

/** Products per job, and per embeddings request: one provider call embeds a batch's changed texts. */
export const BATCH = 100;

export const IndexJob = Type.Object({
  object: Type.Literal('job'),
  id: Uuid(),
  type: Type.Literal('embeddings.index_catalog'),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  progress: Type.Object({ done: Type.Integer({ minimum: 0 }), total: Type.Integer({ minimum: 0 }) }),
  result: Type.Union([Type.Object({ embedded: Type.Integer(), unchanged: Type.Integer() }), Type.Null()], {
    description: 'When succeeded: products embedded anew, and those whose text had not changed.',
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

const toJob = (r: Row) => ({
  object: 'job' as const,
  id: r.id as string,
  type: 'embeddings.index_catalog' as const,
  status: r.status,
  progress: { done: Number(r.done), total: Number(r.total) },
  result: r.status === 'succeeded' ? { embedded: Number(r.embedded), unchanged: Number(r.done) - Number(r.embedded) } : null,
  error: (r.error ?? null) as string | null,
  created_at: iso(r.created_at),
});

interface Item {
  ref: string;
  text: string;
  product_id: string;
}
interface Payload {
  store_id: string;
  run_id: string;
  items: Item[];
}

/** What a product is embedded as: its name, its description and its options' values. */
const productText = (p: any) =>
  [p.name, p.description, ...(p.options ?? []).map((o: any) => `${o.name}: ${(o.values ?? []).join(', ')}`)].filter(Boolean).join('\n');

/**
 * Starts indexing the store's live products: reads them (through products.list_products, as this
 * plugin), records the run and queues one job per BATCH products, in this change's transaction.
 */
export async function startIndex(ctx: Ctx) {
  embeddingsProvider(ctx.config as ProviderConfig); // unset: 400 now, before anything is written
  const items: Item[] = [];
  for (let after: string | undefined; ;) {
    const page = await ctx.call('products.list_products', { limit: 100, ...(after ? { starting_after: after } : {}) });
    for (const p of page.data) items.push({ ref: `product:${p.id}`, text: productText(p), product_id: p.id });
    if (!page.has_more || !page.data.length) break;
    after = page.data.at(-1)!.id;
  }
  const id = crypto.randomUUID();
  const now = ctx.clock.now();
  const status = items.length ? 'queued' : 'succeeded';
  const [row] = await ctx.db.query(
    `INSERT INTO embedding_index_runs (id, store_id, status, total, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING *`,
    [id, ctx.store.id, status, items.length, now],
  );
  for (let i = 0; i < items.length; i += BATCH)
    await ctx.enqueue('index_catalog', { store_id: ctx.store.id, run_id: id, items: items.slice(i, i + BATCH) } satisfies Payload);
  return toJob(row);
}

export async function getIndexJob(ctx: Ctx, id: string) {
  const [row] = await ctx.db.query('SELECT * FROM embedding_index_runs WHERE store_id = $1 AND id = $2', [ctx.store.id, id]);
  if (!row) throw errors.notFound(`index job: '${id}'`, 'id');
  return toJob(row);
}

/**
 * One batch of a run: only products whose text (by hash) or model changed are sent to the
 * provider, in one request. A provider failure fails the run with its message (not retried: the
 * next index_catalog starts again, and what was embedded stays).
 */
export async function runIndexBatch(deps: JobDeps, payload: Payload) {
  const { db, clock, config } = deps;
  const [run] = await db.query(
    `UPDATE embedding_index_runs SET status = 'running', updated_at = $3 WHERE store_id = $1 AND id = $2 AND status IN ('queued', 'running') RETURNING id`,
    [payload.store_id, payload.run_id, clock.now()],
  );
  if (!run) return; // the run failed already
  try {
    const model = config.model as string;
    const kept = await db.query('SELECT ref, content_hash, model FROM embeddings WHERE store_id = $1 AND ref = ANY($2::text[])', [
      payload.store_id,
      payload.items.map((i) => i.ref),
    ]);
    const same = new Set(kept.filter((k) => k.model === model).map((k) => `${k.ref}\u0000${k.content_hash}`));
    const changed = payload.items.filter((i) => !same.has(`${i.ref}\u0000${hashOf(i.text)}`));
    if (changed.length) {
      const provider = embeddingsProvider(config as ProviderConfig);
      const meter = { db, clock, storeId: payload.store_id, prices: config.provider_prices };
      const vectors = await metered(meter, provider.name, model, async () => {
        const r = await provider.embed(
          model,
          changed.map((i) => i.text),
        );
        return { value: r.vectors.map(normalize), usage: r.usage };
      });
      await db.transaction(async (tx: Db) => {
        for (const [n, item] of changed.entries())
          await upsertEmbedding(
            tx,
            clock.now(),
            payload.store_id,
            model,
            { ref: item.ref, text: item.text, metadata: { product_id: item.product_id } },
            vectors[n],
          );
      });
    }
    await db.query(
      `UPDATE embedding_index_runs SET done = done + $3, embedded = embedded + $4,
         status = CASE WHEN done + $3 >= total THEN 'succeeded' ELSE status END, updated_at = $5
       WHERE store_id = $1 AND id = $2`,
      [payload.store_id, payload.run_id, payload.items.length, changed.length, clock.now()],
    );
  } catch (err) {
    if (!(err instanceof SvcError)) throw err; // a bug or the database: pg-boss retries
    await db.query(`UPDATE embedding_index_runs SET status = 'failed', error = $3, updated_at = $4 WHERE store_id = $1 AND id = $2`, [
      payload.store_id,
      payload.run_id,
      err.message,
      clock.now(),
    ]);
  }
}
