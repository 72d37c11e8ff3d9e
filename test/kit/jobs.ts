import type { Clock } from '../../core/clock';
import type { Db } from '../../core/db/types';
import { pluginJobs, type HeldJob } from '../../core/jobs/run';
import type { Registry } from '../../core/plugins/contract';
import type { Logger } from '../../core/log';

type Deps = { db: Db; clock: Clock; registry: Registry };

/**
 * Runs jobs of a plugin's queue (`email.deliver`, `loyalty.on`) as a worker would: through the
 * core's runner (core/jobs/run.ts), with pg-boss's data as it holds it. `attempt` is the retry
 * count the worker would see (0: the first try).
 */
export async function runJob(
  h: Deps,
  queue: string,
  held: (Partial<HeldJob> & { data: unknown })[],
  opts: { retryLimit?: number; log?: Logger } = {},
) {
  const def = pluginJobs(h.db, h.clock, h.registry, { log: opts.log }).find((j) => j.queue === queue);
  if (!def) throw new Error(`no queue ${queue}`);
  if (def.run) return void (await def.run(held.map((j) => j.data)));
  return def.runEach!(held.map((j) => ({ id: crypto.randomUUID(), retryCount: 0, retryLimit: opts.retryLimit ?? 5, ...j })));
}

/** A cron job's run (its data is pg-boss's schedule's: none). */
export const runCron = (h: Deps, queue: string) => runJob(h, queue, [{ data: null }]);

/** Takes (deletes) the jobs pg-boss holds on `queue` for this store, oldest first. */
export async function takeQueued(h: Deps & { store: { id: string } }, queue: string): Promise<HeldJob[]> {
  const rows = await h.db.query<{ id: string; data: any; retry_count: number; retry_limit: number }>(
    `DELETE FROM pgboss.job WHERE name = $1 AND data->>'store_id' = $2 RETURNING id, data, retry_count, retry_limit, created_on`,
    [queue, h.store.id],
  );
  return rows.map((r) => ({ id: r.id, data: r.data, retryCount: r.retry_count, retryLimit: r.retry_limit }));
}
