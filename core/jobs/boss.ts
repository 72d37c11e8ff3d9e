import { PgBoss, fromBunSql, fromPglite } from 'pg-boss';
import type { Db } from '../db/types';

/**
 * pg-boss on svc's own database (embedded PGlite or PostgreSQL), through pg-boss's adapters for
 * the drivers we already hold.
 */
export function createBoss(db: Db, opts: { supervise: boolean; schedule?: boolean }): PgBoss {
  const native = db.native as { pglite?: any; sql?: any };
  const adapter = native.pglite ? fromPglite(native.pglite) : fromBunSql(native.sql);
  return new PgBoss({
    db: adapter,
    ...(native.pglite ? { backend: 'pglite' as const } : {}),
    schema: 'pgboss',
    supervise: opts.supervise,
    // Jobs of a killed worker (their heartbeat stopped, or they expired) are found by the
    // supervise/monitor pass; checking every 5 s instead of pg-boss's 60 s brings a dead worker's
    // webhook deliveries back within about 20 s (workers/webhook-state.ts, JOB_HEARTBEAT_S).
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    schedule: opts.schedule ?? false,
  });
}

/**
 * Workers fetch in batches. Their own polling is a backstop: one statement per half second wakes
 * the workers of the queues holding a ready job (wake.ts), so an idle queue costs nothing.
 */
export const WORK_DEFAULTS = { pollingIntervalSeconds: 30, batchSize: 50 };
