import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors } from '../errors';
import { credentialId, type Principal } from '../plugins/contract';

import { RETENTION } from '../db/retention';

export const RETENTION_MS = RETENTION.idempotency_keys.ms;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** The operator's keys live in a namespace of their own (the column holds credential ids, uuids). */
const OPERATOR = '00000000-0000-0000-0000-000000000000';

/**
 * Whose namespace an Idempotency-Key belongs to (SPEC 7: keys are namespaced per API key): the
 * credential's id, or the operator's namespace. None for the public: without a credential one
 * visitor's key could replay another's answer, so the header is ignored there, as on a GET.
 */
export function keyOwner(p: Principal): string | undefined {
  if (p.kind === 'admin') return OPERATOR;
  if (p.kind === 'public') return undefined;
  return credentialId(p);
}

const inFlight = new Set<string>();
const requestHash = (method: string, path: string, body: string) =>
  new Bun.CryptoHasher('sha256').update(`${method} ${path}\n${body}`).digest('hex');

/** Maps the key to a 64-bit advisory lock id, so processes sharing PostgreSQL see each other's in-flight keys. */
const lockId = (apiKeyId: string, key: string) => {
  const h = new Bun.CryptoHasher('sha256').update(`${apiKeyId}:${key}`).digest();
  return h.readBigInt64BE(0).toString();
};

/**
 * Runs `run` under an Idempotency-Key (SPEC 7), inside the caller's transaction `tx`: the record is
 * written in the same transaction as the change it guards, so a request that fails leaves nothing
 * and a retry runs again. Only successful responses are kept (a failed request changed nothing,
 * so repeating it is safe).
 */
export async function withIdempotency(
  tx: Db,
  clock: Clock,
  opts: { apiKeyId: string; key: string; method: string; path: string; rawBody: string },
  run: (tx: Db) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (opts.key.length > 255) throw errors.validation('Idempotency-Key must be at most 255 characters.', 'Idempotency-Key');
  const hash = requestHash(opts.method, opts.path, opts.rawBody);
  const [{ locked }] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [lockId(opts.apiKeyId, opts.key)]);
      if (!locked) throw inFlightError();
      const [prior] = await tx.query(
        'SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND created_at > $3',
        [opts.apiKeyId, opts.key, new Date(clock.now().getTime() - RETENTION_MS)],
      );
      if (prior) {
        if (prior.request_hash !== hash)
          throw errors.badRequest(
            'idempotency_key_reused',
            'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
            'Idempotency-Key',
          );
        return { status: prior.response_status, body: storedBody(prior.response_body), replayed: true };
      }
      const res = await run(tx);
      await tx.query(
        `INSERT INTO idempotency_keys (api_key_id, key, request_hash, response_status, response_body, created_at)
         VALUES ($1, $2, $3, $4, to_jsonb($5::text), $6)
         ON CONFLICT (api_key_id, key) DO UPDATE SET request_hash = $3, response_status = $4, response_body = to_jsonb($5::text), created_at = $6`,
        [opts.apiKeyId, opts.key, hash, res.status, JSON.stringify(res.body), clock.now()],
      );
      return { ...res, replayed: false };
}

/**
 * The answer is kept as its JSON text (a jsonb string), so a replay is byte for byte the first
 * answer: a jsonb object would come back with its keys reordered. Records written before were
 * objects, and are replayed as such.
 */
const storedBody = (stored: unknown) => (typeof stored === 'string' ? JSON.parse(stored) : stored);

/**
 * Marks a key in flight in this process before its transaction starts (on the embedded database a
 * second request would otherwise queue behind the first's transaction); the advisory lock above
 * does the same across processes. Returns the release function.
 */
export function claimInFlight(apiKeyId: string, key: string): () => void {
  const local = `${apiKeyId}:${key}`;
  if (inFlight.has(local)) throw inFlightError();
  inFlight.add(local);
  return () => inFlight.delete(local);
}

const inFlightError = () =>
  errors.conflict('A request with this Idempotency-Key is still in progress. Retry after it completes.', 'idempotency_key_in_use', 'Idempotency-Key');

