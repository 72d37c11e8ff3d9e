import * as oauth from 'oauth4webapi';
import type { Harness } from './setup';
import { browser, formFields } from './users';

/**
 * An independent OAuth client (oauth4webapi) driving the authorization server from nothing, the
 * way an MCP client does: 401 -> protected resource metadata -> server metadata -> registration
 * -> authorize (a browser signs in and consents) -> token.
 */
export const REDIRECT = 'http://127.0.0.1:7777/callback';
export const MCP_URL = 'http://svc.test/agent/mcp';

export function clientOptions(h: Harness) {
  const fetchVia = (url: string | URL | Request, init?: RequestInit) => h.app.handle(new Request(url, init));
  return { [oauth.customFetch]: fetchVia as typeof fetch, [oauth.allowInsecureRequests]: true } as const;
}

export async function discover(h: Harness) {
  const opts = clientOptions(h);
  // 1. The MCP endpoint without a credential names its metadata.
  const denied = await h.app.handle(
    new Request(MCP_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    }),
  );
  const prm = /resource_metadata="([^"]+)"/.exec(denied.headers.get('www-authenticate') ?? '')?.[1];
  if (denied.status !== 401 || !prm)
    throw new Error(`expected a 401 naming resource_metadata, got ${denied.status} ${denied.headers.get('www-authenticate')}`);
  // 2. RFC 9728: the resource's metadata names the authorization server.
  const rs = await oauth.processResourceDiscoveryResponse(new URL(MCP_URL), await oauth.resourceDiscoveryRequest(new URL(MCP_URL), opts));
  const issuer = new URL(rs.authorization_servers![0]);
  // 3. RFC 8414.
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' }));
  return { as, rs, prm, opts };
}

export async function register(h: Harness, as: oauth.AuthorizationServer, meta: Record<string, unknown> = {}) {
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    { redirect_uris: [REDIRECT], client_name: 'Test MCP Client', token_endpoint_auth_method: 'none', ...meta },
    clientOptions(h),
  );
  return oauth.processDynamicClientRegistrationResponse(res) as Promise<oauth.Client>;
}

export interface AuthorizeOpts {
  scope?: string;
  redirectUri?: string;
  decision?: 'allow' | 'deny';
  storeId?: string;
  state?: string;
}

/** Builds the authorization URL, signs in with `b` and answers the consent page; returns the callback URL. */
export async function authorize(
  h: Harness,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  b: ReturnType<typeof browser>,
  email: string,
  o: AuthorizeOpts = {},
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = o.state ?? oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', o.redirectUri ?? REDIRECT);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', o.scope ?? 'products:read orders:read');
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('resource', MCP_URL);
  return { ...(await answerAuthorization(b, url.toString(), email, o)), verifier, state };
}

/**
 * Opens an authorization URL (built by any client) in `b`: signs in if asked to, answers the
 * consent page; returns the callback URL the browser is sent to, the last page, and the consent page.
 */
export async function answerAuthorization(
  b: ReturnType<typeof browser>,
  url: string,
  email: string,
  o: Pick<AuthorizeOpts, 'decision' | 'storeId'> = {},
) {
  let r = await b.get(url);
  if (r.status === 303 && r.location?.startsWith('/auth/login')) {
    const login = await b.get(r.location);
    r = await b.post('/auth/login', { ...formFields(login.text, '/auth/login'), email, password: 'correct horse battery staple' });
    if (r.status !== 303) throw new Error(`sign-in failed: ${r.status}`);
    r = await b.get(r.location!);
  }
  if (r.status !== 200) return { callback: r.location ? new URL(r.location) : undefined, page: r, consent: undefined };
  const fields = formFields(r.text, '/auth/authorize');
  if (o.storeId) fields.store_id = o.storeId;
  const done = await b.post('/auth/authorize', { ...fields, decision: o.decision ?? 'allow' });
  return { callback: done.location ? new URL(done.location) : undefined, page: done, consent: r.text };
}

export async function exchange(h: Harness, as: oauth.AuthorizationServer, client: oauth.Client, callback: URL, verifier: string, state: string) {
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
    ...clientOptions(h),
    additionalParameters: { resource: MCP_URL },
  });
  return oauth.processAuthorizationCodeResponse(as, client, res);
}

/** The raw token endpoint (negative tests look at the RFC 6749 5.2 error bodies). */
export async function tokenRequest(h: Harness, body: Record<string, string>, json = false) {
  const res = await h.app.handle(
    new Request('http://svc.test/v1/auth/token', {
      method: 'POST',
      headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
      body: json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
    }),
  );
  return { status: res.status, body: (await res.json().catch(() => null)) as any, headers: res.headers };
}
