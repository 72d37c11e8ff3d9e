/**
 * Idempotency of UCP writes (checkout-rest.md "Idempotency-Key", signatures.md "Replay
 * Protection"): a key belongs to one agent (its profile URL) in one store; a repeat with the same
 * request answers the stored response without running again; the same key with another request
 * is 409; a storage failure fails closed (503). Records are kept 48 hours (the spec's
 * recommendation; at least 24).
 *
 * The record is claimed in the operation's own transaction (INSERT ... ON CONFLICT DO NOTHING): on
 * PostgreSQL a concurrent repeat waits on the claim until the first commits, then replays it, so
 * two racing repeats never both run. A failure (a thrown error) rolls the claim back with the
 * change, so only answers that were given are ever replayed.
 */
import type { Clock, Db } from '../../../core/sdk';
import { ucpFail, UcpError } from './errors';

export const RETENTION_HOURS = 48;
export const MAX_KEY_LENGTH = 255;

export interface Stored {
  status: number;
  body: unknown;
  replayed?: boolean;
}

export interface IdemScope {
  storeId: string;
  agent: string;
  key: string;
  /** A hash of what the key stands for: operation, resource id and body. */
  hash: string;
}

export const requestHash = (parts: unknown[]) => new Bun.CryptoHasher('sha256').update(JSON.stringify(parts)).digest('hex');

/** The Idempotency-Key, checked: absent is undefined; present, 1 to 255 characters. */
export function idempotencyKey(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!value.length || value.length > MAX_KEY_LENGTH) throw ucpFail('invalid_request', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`);
  return value;
}

/**
 * Runs `work` in a transaction holding the key's claim, or replays what the key answered before.
 * Without a key, `work` simply runs in a transaction.
 */
export async function idempotent(db: Db, clock: Clock, scope: IdemScope | undefined, work: (tx: Db) => Promise<Stored>): Promise<Stored> {
  try {
    return await db.transaction(async (tx) => {
      if (!scope) return work(tx);
      const claimed = await tx.query(
        `INSERT INTO ucp_idempotency (store_id, agent, key, request_hash, status, created_at)
         VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT (store_id, agent, key) DO NOTHING RETURNING key`,
        [scope.storeId, scope.agent, scope.key, scope.hash, clock.now().toISOString()],
      );
      if (!claimed.length) {
        const [prior] = await tx.query<{ request_hash: string; status: number; body: string | null }>(
          'SELECT request_hash, status, body FROM ucp_idempotency WHERE store_id = $1 AND agent = $2 AND key = $3',
          [scope.storeId, scope.agent, scope.key],
        );
        if (prior.request_hash !== scope.hash) {
          throw ucpFail('idempotency_conflict', 'This Idempotency-Key was used with a different request; use a new key for a new request.');
        }
        if (!prior.status)
          throw ucpFail('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry shortly.', { retry_after: 1 });
        return { status: prior.status, body: prior.body === null ? null : JSON.parse(prior.body), replayed: true };
      }
      const out = await work(tx);
      await tx.query('UPDATE ucp_idempotency SET status = $4, body = $5 WHERE store_id = $1 AND agent = $2 AND key = $3', [
        scope.storeId,
        scope.agent,
        scope.key,
        out.status,
        JSON.stringify(out.body),
      ]);
      return out;
    });
  } catch (err) {
    if (err instanceof UcpError || !isStorageFailure(err)) throw err;
    throw ucpFail('service_unavailable', 'Idempotency records are unavailable; the request was not run. Retry later.', { retry_after: 5 });
  }
}

/** Connection-level failures (the database went away): fail closed, as the spec asks. */
function isStorageFailure(err: unknown): boolean {
  const code = (err as { code?: string })?.code ?? '';
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code.startsWith('08') || code === '57P01';
}

/** Drops records past the retention window (a cron job of the plugin). */
export async function pruneIdempotency(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - RETENTION_HOURS * 3_600_000).toISOString();
  const rows = await db.query('DELETE FROM ucp_idempotency WHERE created_at < $1 RETURNING key', [cutoff]);
  return rows.length;
}
