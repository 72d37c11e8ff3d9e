import type { Db } from '../../../core/sdk';
import { acpError } from './wire';

/** ACP keeps a key at least 24 h. */
const RETENTION_MS = 24 * 3600 * 1000;

/** JSON with object keys sorted: bodies compare by meaning (key order never matters, null is not absent). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

const hashOf = (endpoint: string, body: unknown) => new Bun.CryptoHasher('sha256').update(`${endpoint}\n${canonical(body)}`).digest('hex');

/**
 * ACP's Idempotency-Key on every POST: missing 400 idempotency_key_required; the same key with
 * another body (semantically) 422 idempotency_conflict; one still running 409 idempotency_in_flight
 * with Retry-After; a finished one replayed (same status and body, Idempotent-Replayed: true).
 * 5xx answers are never kept. Keys are scoped to the agent's API key and the endpoint.
 */
export async function idempotent(
  db: Db,
  o: { storeId: string; apiKeyId: string; key: string | null; endpoint: string; body: unknown; now: Date },
  run: () => Promise<Response>,
): Promise<Response> {
  if (!o.key) return acpError(400, 'idempotency_key_required', 'Idempotency-Key header is required');
  if (o.key.length > 255) return acpError(400, 'invalid', 'Idempotency-Key must be at most 255 characters.', undefined);
  const hash = hashOf(o.endpoint, o.body);
  const echo = { 'Idempotency-Key': o.key };
  // Claim the key; a prior claim (within retention) answers instead.
  const claimed = await db.query(
    `INSERT INTO checkout_acp_idempotency AS i (store_id, api_key_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (store_id, api_key_id, key) DO UPDATE SET request_hash = $4, response_status = NULL, response_text = NULL, created_at = $5
       WHERE i.created_at <= $6
     RETURNING key`,
    [o.storeId, o.apiKeyId, o.key, hash, o.now, new Date(o.now.getTime() - RETENTION_MS)],
  );
  if (!claimed.length) {
    const [prior] = await db.query('SELECT * FROM checkout_acp_idempotency WHERE store_id = $1 AND api_key_id = $2 AND key = $3', [
      o.storeId,
      o.apiKeyId,
      o.key,
    ]);
    if (prior.request_hash !== hash)
      return acpError(422, 'idempotency_conflict', 'Idempotency-Key has already been used with a different request body', undefined, {}, echo);
    if (prior.response_status == null)
      return acpError(
        409,
        'idempotency_in_flight',
        'A request with this Idempotency-Key is currently being processed',
        undefined,
        {},
        {
          ...echo,
          'Retry-After': '1',
        },
      );
    return new Response(prior.response_text, {
      status: prior.response_status,
      headers: { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true', ...echo },
    });
  }
  const release = () =>
    db.query('DELETE FROM checkout_acp_idempotency WHERE store_id = $1 AND api_key_id = $2 AND key = $3', [o.storeId, o.apiKeyId, o.key]);
  let res: Response;
  try {
    res = await run();
  } catch (e) {
    await release();
    throw e;
  }
  if (res.status >= 500) {
    await release();
    return res;
  }
  const text = await res.text();
  await db.query(
    'UPDATE checkout_acp_idempotency SET response_status = $4, response_text = $5 WHERE store_id = $1 AND api_key_id = $2 AND key = $3',
    [o.storeId, o.apiKeyId, o.key, res.status, text],
  );
  const headers = new Headers(res.headers);
  headers.set('Idempotency-Key', o.key);
  return new Response(text, { status: res.status, headers });
}
