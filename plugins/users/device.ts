import type { Ctx, Db, Clock } from '../../core/sdk';
import { GrantError, type Grant } from './grants';
import { grantable, scopeUniverse, type Role } from './roles';
import { randomToken, sha256 } from './web';

/**
 * The device authorization grant (RFC 8628), for agents and CLIs without a browser of their own:
 * the device gets a device_code to poll with and a user_code the human enters at /auth/device,
 * signed in, choosing the store. Polling faster than the interval earns slow_down (and a longer
 * interval); an unanswered code expires.
 */
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const DEVICE_TTL_S = 600;
export const DEVICE_INTERVAL_S = 5;

/** The built-in public client of svc's own CLI and the svc_login tool. */
export const CLI_CLIENT = 'svc-cli';
export async function ensureCliClient(db: Db, clock: Clock) {
  await db.query(
    `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, kind, created_at) VALUES ($1, NULL, $2, $3, 'builtin', $4) ON CONFLICT (client_id) DO NOTHING`,
    [CLI_CLIENT, 'svc command line', ['http://127.0.0.1/callback'], clock.now()],
  );
}

// No vowels or look-alikes: a code that never spells a word and is easy to read out.
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
function userCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const s = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}
export const normalizeUserCode = (c: unknown) => {
  const s = String(c ?? '')
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
  return s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4)}` : '';
};

export async function startDevice(ctx: Ctx, clientId: string, scope: unknown, resource: string, base: string) {
  const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
  const universe = scopeUniverse(ctx.registry);
  const unknown = scopes.find((s) => !universe.includes(s));
  if (unknown) throw new GrantError('invalid_scope', `Unknown scope: ${unknown}.`);
  const device = randomToken();
  const now = ctx.clock.now();
  let code = userCode();
  for (let i = 0; ; i++) {
    const rows = await ctx.db.query(
      `INSERT INTO oauth_device_codes (device_code_hash, user_code, client_id, scopes, resource, status, interval_s, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8) ON CONFLICT (user_code) DO NOTHING RETURNING user_code`,
      [sha256(device), code, clientId, scopes, resource, DEVICE_INTERVAL_S, new Date(now.getTime() + DEVICE_TTL_S * 1000), now],
    );
    if (rows.length) break;
    if (i > 5) throw new Error('could not find a free user code');
    code = userCode();
  }
  return {
    device_code: device,
    user_code: code,
    verification_uri: `${base}/auth/device`,
    verification_uri_complete: `${base}/auth/device?user_code=${code}`,
    expires_in: DEVICE_TTL_S,
    interval: DEVICE_INTERVAL_S,
  };
}

/** A pending code by what the human typed, if it is still good. */
export async function pendingByUserCode(ctx: Ctx, typed: unknown) {
  const code = normalizeUserCode(typed);
  if (!code) return undefined;
  const [row] = await ctx.db.query(
    `SELECT d.user_code, d.client_id, d.scopes, d.resource, c.name AS client_name FROM oauth_device_codes d JOIN oauth_clients c ON c.client_id = d.client_id
     WHERE d.user_code = $1 AND d.status = 'pending' AND d.expires_at > $2`,
    [code, ctx.clock.now()],
  );
  return row as { user_code: string; client_id: string; scopes: string[]; resource: string; client_name: string } | undefined;
}

/** The human's answer: approve (a grant for the chosen store, scopes bounded by the role) or deny. */
export async function decideDevice(ctx: Ctx, code: string, decision: { userId: string; storeId: string; role: Role } | 'deny'): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.query(
      `SELECT client_id, scopes, resource FROM oauth_device_codes WHERE user_code = $1 AND status = 'pending' AND expires_at > $2 FOR UPDATE`,
      [code, ctx.clock.now()],
    );
    if (!row) return false;
    if (decision === 'deny') {
      await tx.query(`UPDATE oauth_device_codes SET status = 'denied' WHERE user_code = $1`, [code]);
      return true;
    }
    const scopes = grantable(ctx.registry, decision.role, row.scopes);
    if (!scopes.length) return false;
    const [grant] = await tx.query(
      'INSERT INTO oauth_grants (id, client_id, user_id, store_id, scopes, resource, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6) RETURNING id',
      [row.client_id, decision.userId, decision.storeId, scopes, row.resource, ctx.clock.now()],
    );
    await tx.query(`UPDATE oauth_device_codes SET status = 'approved', grant_id = $2 WHERE user_code = $1`, [code, grant.id]);
    return true;
  });
}

/**
 * One poll of the token endpoint (RFC 8628 3.4, 3.5): the grant once approved (good once), else
 * authorization_pending, slow_down (polled within the interval; the interval grows by 5 s),
 * access_denied or expired_token.
 */
export async function pollDevice(ctx: Ctx, clientId: string, deviceCode: unknown): Promise<Grant> {
  if (typeof deviceCode !== 'string') throw new GrantError('invalid_request', 'device_code is required.');
  const hash = sha256(deviceCode);
  const now = ctx.clock.now();
  const outcome = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query('SELECT * FROM oauth_device_codes WHERE device_code_hash = $1 FOR UPDATE', [hash]);
    if (!row || row.client_id !== clientId)
      return { error: 'invalid_grant', message: 'The device code is unknown, or was issued to another client.' };
    if (row.status === 'used') return { error: 'invalid_grant', message: 'The device code was already used.' };
    if (row.status === 'denied') return { error: 'access_denied', message: 'The user denied the request.' };
    if (new Date(row.expires_at).getTime() <= now.getTime()) return { error: 'expired_token', message: 'The device code has expired; start again.' };
    if (row.status === 'approved') {
      await tx.query(`UPDATE oauth_device_codes SET status = 'used' WHERE device_code_hash = $1`, [hash]);
      const [g] = await tx.query('SELECT id, client_id, user_id, store_id, scopes, resource FROM oauth_grants WHERE id = $1 AND revoked_at IS NULL', [
        row.grant_id,
      ]);
      return g ? { grant: g as Grant } : { error: 'invalid_grant', message: 'The grant was revoked.' };
    }
    const early = row.last_polled_at && now.getTime() - new Date(row.last_polled_at).getTime() < row.interval_s * 1000;
    await tx.query('UPDATE oauth_device_codes SET last_polled_at = $2, interval_s = interval_s + $3 WHERE device_code_hash = $1', [
      hash,
      now,
      early ? 5 : 0,
    ]);
    return early
      ? { error: 'slow_down', message: `Polling too fast: wait ${row.interval_s + 5} seconds between polls.` }
      : { error: 'authorization_pending', message: 'The user has not answered yet.' };
  });
  if ('grant' in outcome && outcome.grant) return outcome.grant;
  throw new GrantError((outcome as any).error, (outcome as any).message);
}
