import type { Clock } from '../core/clock';
import type { Db } from '../core/db/types';
import { purgeExpired } from '../core/db/retention';
import { refreshStatistics } from '../core/db';
import { dropExpiredSecrets, purgeWebhookLog } from './webhook-state';

export const MAINTENANCE_QUEUE = 'core.maintenance';
/** Every 10 minutes, once for the whole cluster (a pg-boss schedule), on some worker. */
export const MAINTENANCE_CRON = '*/10 * * * *';

/**
 * Deletes what has expired: idempotency records (24 h), rate-limit windows, idle MCP sessions, old
 * webhook events (30 days), rolled-out webhook secrets past their overlap. Then refreshes the
 * embedded database's planner statistics.
 */
export async function runMaintenance(db: Db, clock: Clock) {
  await purgeExpired(db, clock);
  await purgeWebhookLog(db, clock);
  await dropExpiredSecrets(db, clock);
  await refreshStatistics(db);
}
