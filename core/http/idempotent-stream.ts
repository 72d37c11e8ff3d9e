import type { Clock } from '../clock';
import type { Db } from '../db/types';
import {
  PRIOR_COLUMNS,
  RETENTION_MS,
  claimInFlight,
  inFlightError,
  replayOf,
  requestHash,
  type IdempotencyScope,
  type Recorded,
} from './idempotency';

/**
 * Idempotency-Key on a streamed answer (agent chat). A stream outlives any transaction, so the key
 * is claimed first with a row holding a lease, the stream runs, and its text is recorded when it
 * ends (or when the client leaves: what was produced until then). A repeat meanwhile is 409
 * `idempotency_key_in_use`; afterwards it replays the recorded stream; with another body it is 400
 * `idempotency_key_reused`. If the handler fails before streaming (a 4xx), the claim is dropped,
 * as for any failed request.
 */

/** How long a claim lasts without renewal; the streaming process renews it every RENEW_MS. */
export const LEASE_MS = 5 * 60_000;
const RENEW_MS = 60_000;

/** Claims the key for a new stream (true), or answers with what the earlier use of it decides. */
async function claim(db: Db, clock: Clock, scope: IdempotencyScope, hash: string): Promise<true | Recorded> {
  const now = clock.now();
  // Inserted when new; taken over when the old row is past retention or its stream's lease ran out
  // with the same request (its process died). Otherwise nothing is written and the old row decides.
  const took = await db.query(
    `INSERT INTO idempotency_keys (api_key_id, key, request_hash, created_at, locked_until)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (api_key_id, key) DO UPDATE SET request_hash = $3, response_status = NULL, response_body = NULL,
       response_text = NULL, response_headers = NULL, created_at = $4, locked_until = $5
     WHERE idempotency_keys.created_at <= $6
        OR (idempotency_keys.request_hash = $3 AND idempotency_keys.locked_until IS NOT NULL AND idempotency_keys.locked_until <= $4)
     RETURNING key`,
    [scope.apiKeyId, scope.key, hash, now, new Date(now.getTime() + LEASE_MS), new Date(now.getTime() - RETENTION_MS)],
  );
  if (took.length) return true;
  const [prior] = await db.query(`SELECT ${PRIOR_COLUMNS} FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`, [scope.apiKeyId, scope.key]);
  // Gone between the two statements: the first request just failed and dropped its claim.
  if (!prior) throw inFlightError();
  return replayOf(prior, hash, now);
}

/**
 * Runs `start` (which returns the handler's streamed Response) under the key, or replays. Returns
 * the Response to send (headers: the handler's own; the caller adds the convention headers).
 */
export async function streamIdempotently(
  db: Db,
  clock: Clock,
  scope: IdempotencyScope,
  start: () => Promise<Response>,
): Promise<{ response: Response; replayed: boolean }> {
  const release = claimInFlight(scope.apiKeyId, scope.key);
  const where = [scope.apiKeyId, scope.key];
  let claimed = false;
  try {
    const outcome = await claim(db, clock, scope, requestHash(scope));
    if (outcome !== true) {
      release();
      return { response: new Response(outcome.text, { status: outcome.status, headers: outcome.headers }), replayed: true };
    }
    claimed = true;
    const response = await start();
    return { response: recorded(db, clock, where, response, release), replayed: false };
  } catch (err) {
    if (claimed) await db.query('DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND locked_until IS NOT NULL', where);
    release();
    throw err;
  }
}

/** The handler's stream, passed through unchanged while its text is kept; recorded once it ends. */
function recorded(db: Db, clock: Clock, where: string[], response: Response, release: () => void): Response {
  const headers: Record<string, string> = Object.fromEntries(response.headers);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const renew = setInterval(() => {
    void db
      .query('UPDATE idempotency_keys SET locked_until = $3 WHERE api_key_id = $1 AND key = $2 AND locked_until IS NOT NULL', [
        ...where,
        new Date(clock.now().getTime() + LEASE_MS),
      ])
      .catch(() => {});
  }, RENEW_MS);
  (renew as any).unref?.();
  let finished: Promise<void> | undefined;
  const finish = () =>
    (finished ??= (async () => {
      clearInterval(renew);
      text += decoder.decode();
      try {
        await db.query(
          `UPDATE idempotency_keys SET response_status = $3, response_text = $4, response_headers = $5::text::jsonb, locked_until = NULL
           WHERE api_key_id = $1 AND key = $2`,
          [...where, response.status, text, JSON.stringify(headers)],
        );
      } catch (e) {
        console.error(`idempotency: recording the stream for key '${where[1]}' failed: ${(e as Error).message}`);
      } finally {
        release();
      }
    })());
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        await finish();
        controller.error(err);
        return;
      }
      if (chunk.done) {
        await finish();
        controller.close();
        return;
      }
      text += decoder.decode(chunk.value, { stream: true });
      controller.enqueue(chunk.value);
    },
    async cancel(reason) {
      // The client left: the handler stops (as without a key), and what it produced is the record.
      await reader.cancel(reason).catch(() => {});
      await finish();
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
