import type { Clock, Db } from '../../core/sdk';
import { randomToken, sameText, sha256 } from './web';

/** OAuth clients: registered dynamically (RFC 7591) or by the operator (confidential, with a secret). */
export interface Client {
  client_id: string;
  name: string;
  redirect_uris: string[];
  /** Confidential clients authenticate at the token endpoint; public ones (no secret) must use PKCE. */
  confidential: boolean;
  secret_hash: string | null;
}

export class ClientMetadataError extends Error {
  constructor(
    readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata',
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const isLoopback = (u: URL) => u.protocol === 'http:' && LOOPBACK.has(u.hostname);

/**
 * A redirect URI a client may register: https, http on a loopback address (native apps, RFC 8252
 * 7.3), or a private-use scheme (`com.example.app:/cb`, RFC 8252 7.1). No fragments.
 */
export function checkRedirectUri(uri: unknown): string {
  let u: URL;
  try {
    u = new URL(String(uri));
  } catch {
    throw new ClientMetadataError('invalid_redirect_uri', `Not an absolute URI: ${String(uri).slice(0, 200)}`);
  }
  if (u.hash) throw new ClientMetadataError('invalid_redirect_uri', 'A redirect URI must not have a fragment.');
  const scheme = u.protocol.slice(0, -1);
  if (['javascript', 'data', 'file', 'vbscript', 'blob'].includes(scheme))
    throw new ClientMetadataError('invalid_redirect_uri', `The ${scheme}: scheme is not allowed.`);
  if (scheme === 'http' && !isLoopback(u))
    throw new ClientMetadataError(
      'invalid_redirect_uri',
      'http redirect URIs must be on a loopback address (127.0.0.1 or [::1]); use https otherwise.',
    );
  if (scheme !== 'https' && scheme !== 'http' && !scheme.includes('.'))
    throw new ClientMetadataError('invalid_redirect_uri', 'A private-use scheme must be a reverse domain name (com.example.app).');
  return String(uri);
}

/** Exact match, except that a loopback redirect may use any port (RFC 8252 7.3). */
export function redirectMatches(registered: string[], given: string): boolean {
  if (registered.includes(given)) return true;
  let g: URL;
  try {
    g = new URL(given);
  } catch {
    return false;
  }
  if (!isLoopback(g)) return false;
  return registered.some((r) => {
    const u = new URL(r);
    return isLoopback(u) && u.hostname === g.hostname && u.pathname === g.pathname && u.search === g.search && !g.username && !g.password;
  });
}

export async function registerClient(
  db: Db,
  clock: Clock,
  meta: Record<string, unknown>,
  kind: 'dynamic' | 'admin',
): Promise<{ client: Client; secret?: string; issuedAt: number; method: string }> {
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || !uris.length || uris.length > 20)
    throw new ClientMetadataError('invalid_redirect_uri', 'redirect_uris must list 1 to 20 URIs.');
  const redirect_uris = uris.map(checkRedirectUri);
  const method = String(meta.token_endpoint_auth_method ?? (kind === 'admin' ? 'client_secret_basic' : 'none'));
  if (!['none', 'client_secret_basic', 'client_secret_post'].includes(method))
    throw new ClientMetadataError('invalid_client_metadata', 'token_endpoint_auth_method must be none, client_secret_basic or client_secret_post.');
  const grants = (meta.grant_types as unknown[] | undefined) ?? ['authorization_code', 'refresh_token'];
  const known = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'];
  if (!Array.isArray(grants) || grants.some((g) => !known.includes(g as string)))
    throw new ClientMetadataError('invalid_client_metadata', `grant_types may only hold ${known.join(', ')}.`);
  const responses = (meta.response_types as unknown[] | undefined) ?? ['code'];
  if (!Array.isArray(responses) || responses.some((r) => r !== 'code'))
    throw new ClientMetadataError('invalid_client_metadata', 'response_types may only hold code.');
  const name = typeof meta.client_name === 'string' && meta.client_name.trim() ? meta.client_name.trim().slice(0, 100) : 'An unnamed application';
  const secret = method === 'none' ? undefined : `svc_cs_${randomToken(32)}`;
  const client_id = `svc_client_${randomToken(16)}`;
  const now = clock.now();
  await db.query('INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, kind, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    client_id,
    secret ? sha256(secret) : null,
    name,
    redirect_uris,
    kind,
    now,
  ]);
  return {
    client: { client_id, name, redirect_uris, confidential: !!secret, secret_hash: secret ? sha256(secret) : null },
    secret,
    issuedAt: Math.floor(now.getTime() / 1000),
    method,
  };
}

export async function getClient(db: Db, clientId: unknown): Promise<Client | undefined> {
  // Registered ids are short; a metadata document's id is its URL (client-metadata.ts).
  if (typeof clientId !== 'string' || clientId.length > 2000) return undefined;
  const [row] = await db.query('SELECT client_id, secret_hash, name, redirect_uris FROM oauth_clients WHERE client_id = $1', [clientId]);
  return row
    ? {
        client_id: row.client_id,
        name: row.name,
        redirect_uris: row.redirect_uris,
        confidential: row.secret_hash != null,
        secret_hash: row.secret_hash,
      }
    : undefined;
}

export const secretMatches = (client: Client, secret: unknown) =>
  client.secret_hash != null && typeof secret === 'string' && sameText(client.secret_hash, sha256(secret));
