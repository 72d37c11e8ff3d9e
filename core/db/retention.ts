import type { Clock } from '../clock';
import type { Db } from './types';

/**
 * How long the core's short-lived records are kept. The maintenance job (workers/maintenance.ts)
 * deletes what is older; the modules that read these tables use the same numbers, so a record is
 * never served after the job would have removed it.
 */
export const RETENTION = {
  /** Idempotency records: a repeat within 24 h replays (Stripe's window). */
  idempotency_keys: { column: 'created_at', ms: 24 * 3600_000 },
  /** Rate-limit minute windows: only the current one matters; a few spare for clock skew. */
  rate_limit_windows: { column: 'window_start', ms: 10 * 60_000 },
  /** MCP sessions idle this long are gone (clients re-initialize). */
  mcp_sessions: { column: 'last_used_at', ms: 24 * 3600_000 },
  /** Finished jobs stay readable (GET STORE/jobs/{id}) for 30 days; queued and running ones stay. */
  jobs: { column: 'finished_at', ms: 30 * 86_400_000 },
  /** A reaction's record only has to outlive its job's retries (hours at most). */
  event_reactions: { column: 'created_at', ms: 30 * 86_400_000 },
  /** MCP tasks end at their own expires_at (the client's ttl, core/mcp/tasks.ts). */
  mcp_tasks: { column: 'expires_at', ms: 0 },
} as const;

/** Deletes every expired record of the tables above. */
export async function purgeExpired(db: Db, clock: Clock) {
  for (const [table, { column, ms }] of Object.entries(RETENTION))
    await db.query(`DELETE FROM ${table} WHERE ${column} <= $1`, [new Date(clock.now().getTime() - ms)]);
}
