import type { Clock } from '../core/clock';
import type { Db } from '../core/db/types';
import { deliveryJob, WEBHOOK_QUEUE } from '../core/events/outbox';
import { enqueue } from '../core/jobs/send';

/** SPEC 6.1 rule 2 / SPEC 8: five retries after the first attempt. */
export const RETRY_DELAYS_S = [30, 120, 600, 3600, 21600];
/** An endpoint that has only failed for this long is disabled (re-enable with PATCH is_active). */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/**
 * How long a worker holds a delivery while its request is in flight: longer than the request
 * timeout (10 s), short enough that the job pg-boss hands back after a worker died (its heartbeat
 * stopped, JOB_HEARTBEAT_S) finds the lease lapsed within a retry or two.
 */
export const LEASE_S = 15;
/**
 * A worker holding a delivery job touches it every JOB_HEARTBEAT_S / 2; pg-boss's monitor (every
 * 5 s, core/jobs/boss.ts) fails a job not touched for JOB_HEARTBEAT_S, and retries it 5 s later. A
 * killed worker's deliveries are so retried within about 20 s, instead of at the job expiry.
 */
export const JOB_HEARTBEAT_S = 10;
/** The ceiling for one delivery job however alive its worker (a hung request, a stuck process). */
export const JOB_EXPIRY_S = 60;
/** Events, with their deliveries and attempt log, are kept this long (the retry schedule spans 7 h). */
export const LOG_RETENTION_MS = 30 * 24 * 3600_000;

export interface Claimed {
  id: string;
  store_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  round_attempts: number;
  url: string;
  /** A secret stored in plain text before secrets were sealed; null since. */
  secret: string | null;
  sealed_secret: string | null;
  /** The secret a roll replaced, and when it stops signing (null when there is none). */
  previous_sealed_secret: string | null;
  previous_secret_expires_at: Date | null;
  /** The endpoint's API version: the shape its payloads are sent in. */
  api_version: string;
  is_active: boolean;
  body: string;
}

/**
 * Takes the delivery for one attempt: it must be pending, at the attempt the job was made for
 * (a stale job, e.g. after a resend, finds it moved on) and not leased by another worker.
 * Returns null when there is nothing to do; throws when another worker holds it, so pg-boss retries
 * the job later (its holder may die).
 */
export async function claim(db: Db, deliveryId: string, attempt: number | undefined, now: Date): Promise<Claimed | null> {
  const [row] = await db.query<Claimed>(
    `UPDATE webhook_deliveries d SET lease_until = $3
     FROM webhook_endpoints e, events ev
     WHERE d.id = $1 AND d.status = 'pending' AND ($2::int IS NULL OR d.attempts = $2::int)
       AND (d.lease_until IS NULL OR d.lease_until <= $4)
       AND e.id = d.endpoint_id AND ev.id = d.event_id
     RETURNING d.id, d.store_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.round_attempts, e.url, e.secret, e.sealed_secret,
       e.previous_sealed_secret, e.previous_secret_expires_at, e.api_version, e.is_active, ev.body`,
    [deliveryId, attempt ?? null, new Date(now.getTime() + LEASE_S * 1000), now],
  );
  if (row) return { ...row, attempts: Number(row.attempts), round_attempts: Number(row.round_attempts) };
  const [held] = await db.query(
    `SELECT 1 FROM webhook_deliveries WHERE id = $1 AND status = 'pending' AND ($2::int IS NULL OR attempts = $2::int) AND lease_until > $3`,
    [deliveryId, attempt ?? null, now],
  );
  if (held) throw new Error(`webhook delivery ${deliveryId} is being attempted by another worker`);
  return null;
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
}

export type Outcome = 'succeeded' | 'retrying' | 'failed' | 'skipped';

export interface Recorded {
  outcome: Outcome;
  /** The endpoint was disabled by this attempt (410, or 5 days of failures). */
  disabled: boolean;
  nextRetryAt: Date | null;
}

/**
 * Records one attempt: the delivery's new state, the attempt in the log, the endpoint's counters
 * and health, and for a retry the follow-up job, all at once. `attempted` false records
 * a delivery refused without a request (its endpoint is disabled): failed, no attempt row.
 */
export async function record(db: Db, c: Claimed, r: AttemptResult, now: Date, attempted = true): Promise<Recorded> {
  const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
  const gone = r.statusCode === 410;
  const retry = attempted && !ok && !gone && c.round_attempts < RETRY_DELAYS_S.length;
  const delay = retry ? RETRY_DELAYS_S[c.round_attempts] : 0;
  const nextRetryAt = retry ? new Date(now.getTime() + delay * 1000) : null;
  const status = ok ? 'succeeded' : retry ? 'pending' : 'failed';
  const reason = gone ? 'The endpoint answered 410 Gone.' : 'Every delivery failed for 5 days.';
  // One statement settles the attempt; only a retry also writes its follow-up job, and needs a
  // transaction to do both or neither.
  const settle = async (tx: Db) => {
    const [row] = await tx.query<{ attempts: number; is_active: boolean | null }>(
      `WITH d AS (
         UPDATE webhook_deliveries SET status = $3, attempts = attempts + $12::int, round_attempts = round_attempts + $12::int,
           next_retry_at = $4, lease_until = NULL, last_status_code = $5, last_duration_ms = $6, last_response = $7,
           last_error = $8, updated_at = $9
         WHERE id = $1 AND attempts = $2 AND status = 'pending'
         RETURNING id, attempts
       ), a AS (
         INSERT INTO webhook_delivery_attempts (delivery_id, attempt, succeeded, status_code, duration_ms, response, error, created_at)
         SELECT id, attempts, $10, $5, $6, $7, $8, $9 FROM d WHERE $12::int = 1
       ), e AS (
         UPDATE webhook_endpoints SET
           total_delivered = total_delivered + CASE WHEN $10 THEN 1 ELSE 0 END,
           total_failed = total_failed + CASE WHEN $3 = 'failed' THEN 1 ELSE 0 END,
           failing_since = CASE WHEN $10 THEN NULL WHEN $12::int = 1 THEN coalesce(failing_since, $9) ELSE failing_since END,
           is_active = is_active AND NOT ($11 OR (NOT $10 AND $12::int = 1 AND coalesce(failing_since, $9) <= $9::timestamptz - make_interval(secs => $13::int))),
           disabled_reason = CASE WHEN is_active AND ($11 OR (NOT $10 AND $12::int = 1 AND coalesce(failing_since, $9) <= $9::timestamptz - make_interval(secs => $13::int)))
             THEN $14 ELSE disabled_reason END,
           updated_at = $9
         WHERE id = $15 AND EXISTS (SELECT 1 FROM d)
         RETURNING is_active
       )
       SELECT d.attempts, (SELECT is_active FROM e) AS is_active FROM d`,
      [
        c.id,
        c.attempts,
        status,
        nextRetryAt,
        r.statusCode,
        r.durationMs,
        r.response,
        r.error,
        now,
        ok,
        gone,
        attempted ? 1 : 0,
        DISABLE_AFTER_MS / 1000,
        reason,
        c.endpoint_id,
      ],
    );
    // Someone else settled this attempt meanwhile (a duplicate job): leave their result.
    if (!row) return { outcome: 'skipped' as const, disabled: false, nextRetryAt: null };
    if (retry) await enqueue(tx, WEBHOOK_QUEUE, [deliveryJob(c.id, Number(row.attempts), delay)]);
    return {
      outcome: ok ? ('succeeded' as const) : retry ? ('retrying' as const) : ('failed' as const),
      disabled: c.is_active && row.is_active === false,
      nextRetryAt,
    };
  };
  return retry ? db.transaction(settle) : settle(db);
}

/** Maintenance: forgets events older than LOG_RETENTION_MS (their deliveries and attempts cascade), unless one is still pending. */
export async function purgeWebhookLog(db: Db, clock: Clock) {
  await db.query(
    `DELETE FROM events ev WHERE ev.created_at <= $1
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending')`,
    [new Date(clock.now().getTime() - LOG_RETENTION_MS)],
  );
}

/** Maintenance: forgets rolled-out secrets whose overlap window has ended (deliveries stopped using them then). */
export async function dropExpiredSecrets(db: Db, clock: Clock) {
  await db.query(
    `UPDATE webhook_endpoints SET previous_sealed_secret = NULL, previous_secret_expires_at = NULL
     WHERE previous_secret_expires_at <= $1`,
    [clock.now()],
  );
}
