import { type Ctx } from '../../core/sdk';
import { EgressError, egressFetch } from '../../core/sdk';
import type { AllowList, Resolver } from '../../core/platform';
import { checkRedirectUri, ClientMetadataError, getClient, type Client } from './clients';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP 2025-11-25
 * prefers them to dynamic registration): a client_id that is an https URL names the client, and
 * the JSON document at that URL is its registration. We fetch it through the egress guard (no
 * private addresses, no redirects, 5 KiB, 5 s), accept only public clients (PKCE; a document
 * cannot hold a secret), and keep it as a row of oauth_clients (kind `metadata_document`) until
 * its HTTP cache lifetime ends (at most 24 h): grants reference the row, and every process of the
 * database shares the cache.
 */

export const METADATA_KIND = 'metadata_document';
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const MAX_CACHE_SECONDS = 24 * 3600;
/** A document served without cache headers is fetched again after this long. */
export const DEFAULT_CACHE_SECONDS = 600;
const FETCH_TIMEOUT_MS = 5000;
const MAX_URL_LENGTH = 2000;

/** Egress settings for document fetches: empty in production; tests trust a throwaway CA on 127.0.0.1. */
export interface MetadataEgress {
  allow?: readonly string[] | AllowList;
  resolver?: Resolver;
  ca?: string;
}
let egress: MetadataEgress = {};
/** Replaces the egress settings and returns the previous ones (tests restore them). */
export function setMetadataEgress(opts: MetadataEgress): MetadataEgress {
  const before = egress;
  egress = opts;
  return before;
}

/** Whether a client_id is meant as a metadata document URL (anything else is a registered id). */
export const isMetadataUrl = (clientId: unknown): clientId is string => typeof clientId === 'string' && clientId.startsWith('https://');

/** The draft's rules for the URL itself (section 3): https, a path, no dot segments, fragment or credentials. */
function checkClientIdUrl(id: string): URL {
  const bad = (why: string) => new ClientMetadataError('invalid_client_metadata', `The client_id URL ${why}.`);
  if (id.length > MAX_URL_LENGTH) throw bad(`is longer than ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(id);
  } catch {
    throw bad('is not a valid URL');
  }
  if (u.protocol !== 'https:') throw bad('must use https');
  if (u.pathname === '/' || u.pathname === '') throw bad('must have a path');
  const rawPath = id.replace(/^https:\/\/[^/?#]*/i, '').split(/[?#]/)[0];
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(rawPath)) throw bad('must not contain . or .. path segments');
  if (id.includes('#')) throw bad('must not have a fragment');
  if (u.username || u.password) throw bad('must not contain a user name or password');
  return u;
}

/** Seconds the document may be reused: Cache-Control (no-store/no-cache: 0; max-age), else Expires, else the default; at most 24 h. */
export function cacheSeconds(headers: Headers, now: Date): number {
  const cc = (headers.get('cache-control') ?? '').toLowerCase();
  if (/(^|[,\s])(no-store|no-cache|private)\b/.test(cc)) return 0;
  const maxAge = /(?:^|[,\s])max-age\s*=\s*"?(\d+)/.exec(cc)?.[1];
  let seconds = DEFAULT_CACHE_SECONDS;
  if (maxAge !== undefined) seconds = Number(maxAge);
  else if (headers.has('expires')) {
    const at = Date.parse(headers.get('expires')!);
    seconds = Number.isNaN(at) ? 0 : Math.floor((at - now.getTime()) / 1000);
  }
  return Math.max(0, Math.min(seconds, MAX_CACHE_SECONDS));
}

/** Checks a fetched document against its URL (draft section 4.1); returns the client it describes. */
export function checkDocument(id: string, doc: unknown): Pick<Client, 'name' | 'redirect_uris'> {
  const bad = (why: string) => new ClientMetadataError('invalid_client_metadata', `The client metadata document ${why}.`);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw bad('is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== id) throw bad(`names client_id ${JSON.stringify(String(d.client_id ?? '')).slice(0, 200)}, not the URL it is served at`);
  if ('client_secret' in d || 'client_secret_expires_at' in d) throw bad('must not contain a client secret');
  const method = d.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw bad(`asks for token_endpoint_auth_method ${String(method).slice(0, 50)}; only none (a public client with PKCE) is supported`);
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || !uris.length || uris.length > 20) throw bad('must list 1 to 20 redirect_uris');
  const grants = d.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
    throw bad('may only list the grant_types authorization_code and refresh_token');
  const responses = d.response_types ?? ['code'];
  if (!Array.isArray(responses) || responses.some((r) => r !== 'code')) throw bad('may only list the response_type code');
  const name = typeof d.client_name === 'string' && d.client_name.trim() ? d.client_name.trim().slice(0, 100) : 'An unnamed application';
  return { name, redirect_uris: uris.map(checkRedirectUri) };
}

async function fetchDocument(ctx: Ctx, id: string): Promise<{ doc: unknown; maxAge: number }> {
  let res;
  try {
    res = await egressFetch(id, {
      headers: { accept: 'application/json' },
      httpsOnly: true,
      followRedirects: false,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: MAX_DOCUMENT_BYTES,
      purpose: 'client metadata document',
      signal: ctx.shutdown,
      ...egress,
    });
  } catch (e) {
    if (e instanceof EgressError)
      throw new ClientMetadataError('invalid_client_metadata', `The client metadata document could not be fetched: ${e.message}`);
    throw e;
  }
  if (res.status !== 200)
    throw new ClientMetadataError('invalid_client_metadata', `Fetching the client metadata document answered HTTP ${res.status}.`);
  if (res.truncated)
    throw new ClientMetadataError('invalid_client_metadata', `The client metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
  try {
    return { doc: JSON.parse(res.text()), maxAge: cacheSeconds(res.headers, ctx.clock.now()) };
  } catch {
    throw new ClientMetadataError('invalid_client_metadata', 'The client metadata document is not valid JSON.');
  }
}

/**
 * The client a metadata document URL names: the cached row while it is fresh, else the document
 * fetched and checked again. Throws ClientMetadataError (the authorization endpoint shows it on a
 * page, never redirecting anywhere the document did not vouch for).
 */
export async function metadataClient(ctx: Ctx, id: string): Promise<Client> {
  checkClientIdUrl(id);
  const now = ctx.clock.now();
  const [cached] = await ctx.db.query('SELECT metadata_expires_at FROM oauth_clients WHERE client_id = $1 AND kind = $2', [id, METADATA_KIND]);
  if (cached?.metadata_expires_at && new Date(cached.metadata_expires_at) > now) {
    const client = await getClient(ctx.db, id);
    if (client) return client;
  }
  const { doc, maxAge } = await fetchDocument(ctx, id);
  const { name, redirect_uris } = checkDocument(id, doc);
  const expires = new Date(now.getTime() + maxAge * 1000);
  // A registered client's id never starts with https:// (svc_client_...), so the WHERE only guards the impossible.
  await ctx.db.query(
    `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, kind, created_at, metadata_expires_at)
     VALUES ($1, NULL, $2, $3, $4, $5, $6)
     ON CONFLICT (client_id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris, metadata_expires_at = EXCLUDED.metadata_expires_at
     WHERE oauth_clients.kind = $4`,
    [id, name, redirect_uris, METADATA_KIND, now, expires],
  );
  ctx.log.info('client metadata document fetched', { client_id: id, cache_seconds: maxAge });
  return { client_id: id, name, redirect_uris, confidential: false, secret_hash: null };
}

/**
 * The client a client_id names, wherever it is registered: a metadata document URL (fetched again
 * once its cached copy is stale) or a registered id. Undefined when unknown; ClientMetadataError
 * when a document cannot be fetched or is invalid.
 */
export const findClient = (ctx: Ctx, id: unknown): Promise<Client | undefined> =>
  isMetadataUrl(id) ? metadataClient(ctx, id) : getClient(ctx.db, id);
