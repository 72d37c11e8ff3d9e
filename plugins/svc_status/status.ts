import type { Ctx, Db } from '../../core/sdk';
import { allMigrations, type Registry } from '../../core/platform';
import { workerCounts } from '../local_agent/public';
import { queueState, toIncident } from './checks';
import { providerStatuses } from './providers';
import pkg from '../../package.json';

/** The instance as this store sees it: its incidents are the instance's and its own. */
const VISIBLE = '(store_id IS NULL OR store_id = $1)';

export async function getStatus(ctx: Ctx) {
  const queue = await queueState(ctx.db);
  const workers = await workerCounts(ctx.db, ctx.clock.now());
  const [open] = await ctx.db.query<{ n: string; instance: string }>(
    `SELECT count(*) AS n, count(*) FILTER (WHERE store_id IS NULL) AS instance FROM svc_status_incidents WHERE status = 'open' AND ${VISIBLE}`,
    [ctx.store.id],
  );
  return {
    object: 'status' as const,
    status: Number(open.instance) > 0 ? ('degraded' as const) : ('operational' as const),
    version: pkg.version,
    database: { status: 'ok' as const, backend: ctx.db.kind },
    queue,
    workers: { live: workers.live, stale: workers.stale },
    // Every configured provider svc has probed or called: operational, or failing (providers.ts).
    providers: await providerStatuses(ctx.db),
    open_incidents: Number(open.n),
  };
}

export async function listIncidents(ctx: Ctx, input: { status?: 'open' | 'resolved'; limit?: number; starting_after?: string }) {
  const limit = input.limit ?? 10;
  const rows = await ctx.db.query(
    `SELECT * FROM svc_status_incidents WHERE ${VISIBLE}
        AND ($2::text IS NULL OR status = $2)
        AND ($3::uuid IS NULL OR seq < (SELECT seq FROM svc_status_incidents WHERE id = $3::uuid AND ${VISIBLE}))
      ORDER BY seq DESC LIMIT $4`,
    [ctx.store.id, input.status ?? null, input.starting_after ?? null, limit + 1],
  );
  return {
    object: 'list' as const,
    data: rows.slice(0, limit).map(toIncident),
    has_more: rows.length > limit,
    url: `${ctx.storePath}/status/incidents`,
  };
}

const json = (status: number, body: object) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** /readyz: the database answers and every migration of this build is applied; 503 otherwise (a load balancer waits). */
export async function readiness(db: Db, registry: Registry): Promise<Response> {
  let applied: Set<string>;
  try {
    applied = new Set((await db.query<{ id: string }>('SELECT id FROM svc_migrations')).map((r) => r.id));
  } catch {
    return json(503, { status: 'unavailable', database: 'unreachable', migrations: 'unknown' });
  }
  const missing = allMigrations(registry.plugins)
    .map((m) => m.id)
    .filter((id) => !applied.has(id));
  if (missing.length) return json(503, { status: 'unavailable', database: 'ok', migrations: 'pending', pending: missing });
  return json(200, { status: 'ready', database: 'ok', migrations: 'applied' });
}
