import { SvcError, type Db } from '../../core/sdk';
import { enrichProduct, type EnrichCtx } from './enrich';
import type { Field } from './schemas';

/**
 * A leased slot is freed by its holder when the product is done; a worker that died holding one
 * (killed, machine lost) frees it after this long, past the longest a product can take (two model
 * calls of at most SVC_PROVIDER_TIMEOUT_S each, plus their retries' 30 s).
 */
const leaseMs = (ctx: EnrichCtx) => (2 * (ctx.config.provider_timeout_s ?? 60) + 60) * 1000 + 60_000;
/** How long a worker waits before asking again for a slot when all of the store's are taken. */
const WAIT_MS = 100;

/**
 * Takes one of the store's `limit` slots that is free, or none. Each free slot is tried in turn
 * with one statement: two workers racing for slot 0 both insert, the second's ON CONFLICT sees the
 * first's fresh lease and takes nothing, and it goes on to slot 1 at once.
 */
async function takeSlot(db: Db, storeId: string, holder: string, limit: number, now: Date, until: Date): Promise<number | undefined> {
  const free = await db.query<{ slot: number }>(
    `SELECT s AS slot FROM generate_series(0, $2::int - 1) AS s
      WHERE NOT EXISTS (SELECT 1 FROM enrichment_slots e WHERE e.store_id = $1 AND e.slot = s AND e.held_until > $3)
      ORDER BY s`,
    [storeId, limit, now],
  );
  for (const { slot } of free) {
    const [taken] = await db.query(
      `INSERT INTO enrichment_slots (store_id, slot, holder, held_until) VALUES ($1, $2, $3, $5)
       ON CONFLICT (store_id, slot) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until
         WHERE enrichment_slots.held_until <= $4
       RETURNING slot`,
      [storeId, slot, holder, now, until],
    );
    if (taken) return slot;
  }
  return undefined;
}

const freeSlot = (db: Db, storeId: string, slot: number, holder: string) =>
  db.query('DELETE FROM enrichment_slots WHERE store_id = $1 AND slot = $2 AND holder = $3', [storeId, slot, holder]);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Runs `work` holding one of the store's SVC_ENRICHMENT_CONCURRENCY slots, so every bulk_enrich
 * job of the store, on any worker process, has at most that many products at the model at once.
 */
export async function withSlot<T>(ctx: EnrichCtx, work: () => Promise<T>): Promise<T> {
  const holder = crypto.randomUUID();
  let slot: number | undefined;
  for (;;) {
    const now = ctx.clock.now();
    slot = await takeSlot(ctx.db, ctx.store.id, holder, ctx.config.concurrency, now, new Date(now.getTime() + leaseMs(ctx)));
    if (slot !== undefined) break;
    if (ctx.shutdown.aborted) throw ctx.shutdown.reason ?? new Error('aborted');
    await sleep(WAIT_MS, ctx.shutdown);
  }
  try {
    return await work();
  } finally {
    await freeSlot(ctx.db, ctx.store.id, slot, holder);
  }
}

/**
 * Errors that end the whole job rather than one product: the store's money or the provider's
 * patience ran out, or the server lost its setting. Every other client-side error (a product
 * deleted meanwhile, metadata full) is that product's failure, listed in the result.
 */
const STOPS = new Set(['spend_cap_reached', 'rate_limit_exceeded', 'provider_not_configured']);
const isOwnFailure = (e: unknown): e is SvcError => e instanceof SvcError && (e.status < 500 || e.code === 'provider_error') && !STOPS.has(e.code);

type JobCtx = EnrichCtx & { progress(done: number, total?: number): Promise<void> };

/**
 * bulk_enrich's job: each product enriched as enrich_product does, `concurrency` workers at a time
 * within the store's slots. A product's own failure (gone, a provider error after its retries, an
 * answer outside the schema) is listed and the rest go on; the spend cap, a rate limit or a lost
 * setting stops the job with that error (what was applied stays applied, and is in the log).
 */
export async function bulkEnrich(ctx: JobCtx, input: { product_ids: string[]; fields?: Field[]; apply: boolean }) {
  const ids = input.product_ids;
  const done: { product_id: string; suggestions: unknown; applied: boolean }[] = [];
  const failed: { product_id: string; error: { code: string; message: string } }[] = [];
  let next = 0;
  let finished = 0;
  let stop: unknown;
  // Progress is written in order, one write at a time (workers finish in any order).
  let reported = Promise.resolve();
  const report = () => (reported = reported.then(() => ctx.progress(++finished, ids.length)));
  const worker = async () => {
    while (stop === undefined && next < ids.length) {
      const id = ids[next++];
      try {
        const r = await withSlot(ctx, () => enrichProduct(ctx, { product_id: id, fields: input.fields, apply: input.apply }));
        done.push({ product_id: id, suggestions: r.suggestions, applied: r.applied });
      } catch (e) {
        if (!isOwnFailure(e)) {
          stop ??= e;
          break;
        }
        failed.push({ product_id: id, error: { code: e.code, message: e.message } });
      }
      try {
        await report();
      } catch (e) {
        stop ??= e; // cancelled: ctx.progress throws, and the runner ends the job quietly
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.config.concurrency, ids.length) }, worker));
  if (stop !== undefined) {
    if (done.length && stop instanceof SvcError) ctx.log.warn('bulk_enrich stopped', { enriched: done.length, applied: input.apply });
    throw stop;
  }
  // In the order asked, whatever order the workers finished in.
  const at = new Map(ids.map((id, i) => [id, i]));
  done.sort((a, b) => at.get(a.product_id)! - at.get(b.product_id)!);
  failed.sort((a, b) => at.get(a.product_id)! - at.get(b.product_id)!);
  return { object: 'bulk_enrichment' as const, applied: input.apply, done, failed };
}
