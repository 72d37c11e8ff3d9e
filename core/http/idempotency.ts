import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors } from '../errors';
import { credentialId, type Principal } from '../plugins/contract';

import { RETENTION } from '../db/retention';

export const RETENTION_MS = RETENTION.idempotency_keys.ms;
export const MAX_KEY_LENGTH = 255;

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

/** An answer as it went out: status, the exact body text ('' for none) and, for streams, the handler's headers. */
export interface Recorded {
  status: number;
  text: string;
  headers?: Record<string, string>;
}

export interface IdempotencyScope {
  apiKeyId: string;
  key: string;
  method: string;
  path: string;
  rawBody: string;
}

/**
 * The Idempotency-Key of a request, by the one rule every route that reads it applies: absent is
 * null; otherwise 1 to 255 characters, or a 400 naming the header.
 */
export function idempotencyKeyOf(request: Request): string | null {
  const key = request.headers.get('idempotency-key');
  if (key === null) return null;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw errors.validation(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters.`, 'Idempotency-Key');
  return key;
}

const inFlight = new Set<string>();
export const requestHash = (s: Pick<IdempotencyScope, 'method' | 'path' | 'rawBody'>) =>
  new Bun.CryptoHasher('sha256').update(`${s.method} ${s.path}\n${s.rawBody}`).digest('hex');

/** Maps the key to a 64-bit advisory lock id, so processes sharing PostgreSQL see each other's in-flight keys. */
const lockId = (apiKeyId: string, key: string) => {
  const h = new Bun.CryptoHasher('sha256').update(`${apiKeyId}:${key}`).digest();
  return h.readBigInt64BE(0).toString();
};

const reusedError = () =>
  errors.badRequest(
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
    'Idempotency-Key',
  );

/** A stored row that is a live claim: a stream still running somewhere (its lease not yet run out). */
export const isHeld = (row: Record<string, any>, now: Date) => row.locked_until != null && new Date(row.locked_until).getTime() > now.getTime();

/**
 * What a request meets when its key was used before (a row within retention): the first answer to
 * replay, or 400 (another request used the key) or 409 (the first is still streaming).
 */
export function replayOf(prior: Record<string, any>, hash: string, now: Date): Recorded {
  if (prior.request_hash !== hash) throw reusedError();
  if (isHeld(prior, now)) throw inFlightError();
  const text = prior.response_text ?? (prior.response_body == null ? '' : JSON.stringify(prior.response_body));
  return { status: prior.response_status, text, headers: prior.response_headers ?? undefined };
}

export const PRIOR_COLUMNS = 'request_hash, response_status, response_body, response_text, response_headers, locked_until';

/**
 * Runs `run` under an Idempotency-Key (SPEC 7), inside the caller's transaction `tx`: the record is
 * written in the same transaction as the change it guards, so a request that fails leaves nothing
 * and a retry runs again. Only successful responses are kept (a failed request changed nothing,
 * so repeating it is safe). `render` turns the answer into the exact text sent, which is what a
 * replay sends again, byte for byte.
 */
export async function withIdempotency(
  tx: Db,
  clock: Clock,
  opts: IdempotencyScope,
  run: (tx: Db) => Promise<StoredResponse>,
  render: (res: StoredResponse) => string,
): Promise<Recorded & { replayed: boolean }> {
  const hash = requestHash(opts);
  const now = clock.now();
  const [{ locked }] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [
    lockId(opts.apiKeyId, opts.key),
  ]);
  if (!locked) throw inFlightError();
  const [prior] = await tx.query(`SELECT ${PRIOR_COLUMNS} FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND created_at > $3`, [
    opts.apiKeyId,
    opts.key,
    new Date(now.getTime() - RETENTION_MS),
  ]);
  // A stream's claim whose lease ran out (its process died) is as good as absent, unless reused.
  if (prior && (prior.locked_until == null || isHeld(prior, now) || prior.request_hash !== hash))
    return { ...replayOf(prior, hash, now), replayed: true };
  const res = await run(tx);
  const text = render(res);
  await tx.query(
    `INSERT INTO idempotency_keys (api_key_id, key, request_hash, response_status, response_text, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (api_key_id, key) DO UPDATE SET request_hash = $3, response_status = $4, response_body = NULL,
       response_text = $5, response_headers = NULL, locked_until = NULL, created_at = $6`,
    [opts.apiKeyId, opts.key, hash, res.status, text, now],
  );
  return { status: res.status, text, replayed: false };
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
  let released = false;
  return () => {
    if (!released) inFlight.delete(local);
    released = true;
  };
}

export const inFlightError = () =>
  errors.conflict('A request with this Idempotency-Key is still in progress. Retry after it completes.', 'idempotency_key_in_use', 'Idempotency-Key');
