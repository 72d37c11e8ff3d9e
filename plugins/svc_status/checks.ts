import type { Clock, Db } from '../../core/sdk';
import { enqueue } from '../../core/platform';
import { STALE_S, workerCounts } from '../local_agent/public';
import { failingProviders } from './providers';

/**
 * The conditions svc watches, checked every CHECK_INTERVAL_S by every process (an API-only node
 * too: when every worker is gone, no cron job would run) and opened or closed in the database. A
 * unique index keeps one open incident per key, so processes checking at once never double one.
 */
export const CHECK_INTERVAL_S = 10;
/** Jobs waiting and no live worker for this long: the workers are gone. */
export const WORKERS_GONE_S = 30;

export interface Condition {
  key: string;
  kind: 'workers_gone' | 'backlog' | 'webhook_disabled' | 'provider_failing';
  store_id: string | null;
  title: string;
  details: Record<string, unknown>;
}

/** Jobs due and not taken (pg-boss's states created and retry), and how long the oldest has waited. */
export async function queueState(db: Db): Promise<{ depth: number; lag_seconds: number }> {
  const [r] = await db.query<{ depth: string; lag: number | null }>(
    `SELECT count(*) AS depth, extract(epoch FROM now() - min(start_after))::float AS lag
       FROM pgboss.job WHERE state IN ('created', 'retry') AND start_after <= now()`,
  );
  return { depth: Number(r.depth), lag_seconds: Math.max(0, Math.round(r.lag ?? 0)) };
}

/** What is wrong now. */
export async function currentConditions(db: Db, clock: Clock, backlogS: number): Promise<Condition[]> {
  const now = clock.now();
  const found: Condition[] = [];
  const queue = await queueState(db);
  const workers = await workerCounts(db, now);
  const silentFor = workers.last_heartbeat ? (now.getTime() - workers.last_heartbeat.getTime()) / 1000 - STALE_S : Infinity;
  if (queue.depth > 0 && workers.live === 0 && silentFor >= WORKERS_GONE_S - STALE_S)
    found.push({
      key: 'workers_gone',
      kind: 'workers_gone',
      store_id: null,
      title: `No live worker while ${queue.depth} job(s) wait`,
      details: { queue_depth: queue.depth, stale_workers: workers.stale, last_heartbeat: workers.last_heartbeat?.toISOString() ?? null },
    });
  if (queue.lag_seconds > backlogS)
    found.push({
      key: 'backlog',
      kind: 'backlog',
      store_id: null,
      title: `The oldest waiting job has waited ${queue.lag_seconds} s (over ${backlogS} s)`,
      details: { queue_depth: queue.depth, lag_seconds: queue.lag_seconds, threshold_seconds: backlogS },
    });
  // Providers whose last 3 calls or probes failed (providers.ts): open until 2 succeed in a row.
  for (const p of await failingProviders(db))
    found.push({
      key: `provider_failing:${p.name}`,
      kind: 'provider_failing',
      store_id: null,
      title: `Provider ${p.name} is failing`,
      details: { provider: p.name, failures_in_row: p.failures_in_row, last_error: p.last_error },
    });
  // Endpoints svc disabled itself (410, days of failures); one the store disabled on purpose is no incident.
  const disabled = await db.query<{ id: string; store_id: string; url: string; disabled_reason: string | null }>(
    `SELECT id, store_id, url, disabled_reason FROM webhook_endpoints
      WHERE NOT is_active AND disabled_reason IS NOT NULL AND disabled_reason <> 'Disabled by request.'`,
  );
  for (const e of disabled)
    found.push({
      key: `webhook_disabled:${e.id}`,
      kind: 'webhook_disabled',
      store_id: e.store_id,
      title: `Webhook endpoint ${e.url} was disabled`,
      details: { endpoint_id: e.id, url: e.url, reason: e.disabled_reason },
    });
  return found;
}

/**
 * Opens an incident per condition not yet open and resolves the open ones whose condition has
 * passed; each change queues `incident.opened` or `incident.resolved` to the subscriptions that
 * hear it (every store's for an instance-wide incident, the store's own otherwise), in the same
 * transaction. Answers what changed.
 */
export async function checkIncidents(db: Db, clock: Clock, backlogS: number) {
  const conditions = await currentConditions(db, clock, backlogS);
  return db.transaction(async (tx) => {
    const now = clock.now();
    const opened: any[] = [];
    for (const c of conditions) {
      const [row] = await tx.query(
        `INSERT INTO svc_status_incidents (id, key, kind, store_id, title, details, status, opened_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5::text::jsonb, 'open', $6)
         ON CONFLICT (key) WHERE status = 'open' DO NOTHING RETURNING *`,
        [c.key, c.kind, c.store_id, c.title, JSON.stringify(c.details), now],
      );
      if (row) opened.push(row);
    }
    const resolved = await tx.query(
      `UPDATE svc_status_incidents SET status = 'resolved', resolved_at = $2
        WHERE status = 'open' AND NOT (key = ANY($1::text[])) RETURNING *`,
      [conditions.map((c) => c.key), now],
    );
    for (const [type, rows] of [
      ['incident.opened', opened],
      ['incident.resolved', resolved],
    ] as const)
      for (const r of rows) await announce(tx, type, r, now);
    return { opened: opened.map(toIncident), resolved: resolved.map(toIncident) };
  });
}

export const toIncident = (r: any) => ({
  object: 'incident' as const,
  id: r.id as string,
  kind: r.kind as string,
  scope: (r.store_id ? 'store' : 'instance') as 'store' | 'instance',
  title: r.title as string,
  details: r.details as Record<string, unknown>,
  status: r.status as 'open' | 'resolved',
  opened_at: new Date(r.opened_at).toISOString(),
  resolved_at: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
});
export type Incident = ReturnType<typeof toIncident>;

/** One notify job per subscription that hears it, in the store of that subscription. */
async function announce(tx: Db, type: string, row: any, now: Date) {
  const storeId: string | null = row.store_id ?? null;
  const incident = toIncident(row);
  const subs = await tx.query<{ id: string; store_id: string }>(
    `SELECT id, store_id FROM svc_status_subscriptions WHERE $1::uuid IS NULL OR store_id = $1::uuid`,
    [storeId],
  );
  const event = { id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', type, created_at: now.toISOString(), data: incident };
  await enqueue(
    tx,
    'svc_status.notify',
    subs.map((s) => ({ data: { input: { subscription_id: s.id, event }, store_id: s.store_id } })),
  );
}
