import { chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `svc login --url URL` without a key: OAuth 2.1 in the browser, as the gh and gcloud CLIs do. The
 * CLI registers itself (RFC 7591) with a loopback redirect on 127.0.0.1 (any port, RFC 8252),
 * prints the authorization URL, takes the redirect on a one-shot local listener, checks `state`,
 * and exchanges the code with its PKCE verifier. The tokens go to ~/.svc/session.json (0600);
 * `svc mcp` reads them and refreshes them itself when they are about to expire.
 */
export interface OAuthSession {
  client_id: string;
  token_endpoint: string;
  access_token: string;
  refresh_token: string;
  /** Epoch milliseconds. */
  expires_at: number;
  scope: string;
  store_id?: string;
}

export interface SavedSession {
  url: string;
  api_key?: string;
  oauth?: OAuthSession;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const random = (n = 32) => b64url(crypto.getRandomValues(new Uint8Array(n)));

export function saveSession(file: string, session: SavedSession) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
}

export const readSession = (file: string): SavedSession | undefined => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);

/** The store an access token is for (its `store` claim; the signature is the server's business). */
function storeOf(jwt: string): string | undefined {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')).store;
  } catch {
    return undefined;
  }
}

async function postForm(endpoint: string, form: Record<string, string>, fetchFn: typeof fetch) {
  const res = await fetchFn(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, any>;
  if (!res.ok) throw new Error(`${endpoint} answered ${res.status}: ${body.error ?? ''} ${body.error_description ?? ''}`.trim());
  return body;
}

const toSession = (clientId: string, tokenEndpoint: string, t: Record<string, any>, now: number): OAuthSession => ({
  client_id: clientId,
  token_endpoint: tokenEndpoint,
  access_token: t.access_token,
  refresh_token: t.refresh_token,
  expires_at: now + Number(t.expires_in ?? 3600) * 1000,
  scope: t.scope ?? '',
  store_id: storeOf(t.access_token),
});

export interface BrowserLoginOptions {
  scope?: string;
  /** Shown the authorization URL (default: printed to stderr). */
  show?: (url: string) => void;
  fetch?: typeof fetch;
  /** Gives up waiting for the browser after this long (default 5 minutes). */
  timeoutMs?: number;
}

export async function browserLogin(serverUrl: string, opts: BrowserLoginOptions = {}): Promise<OAuthSession> {
  const fetchFn = opts.fetch ?? fetch;
  const base = serverUrl.replace(/\/$/, '');
  const metaRes = await fetchFn(`${base}/.well-known/oauth-authorization-server`);
  if (!metaRes.ok) throw new Error(`${base} publishes no OAuth metadata (${metaRes.status}); is it an svc server?`);
  const meta = (await metaRes.json()) as Record<string, string>;

  let deliver!: (params: URLSearchParams) => void;
  const arrived = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const listener = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      if (u.pathname !== '/callback') return new Response('Not found', { status: 404 });
      deliver(u.searchParams);
      const ok = u.searchParams.has('code');
      return new Response(
        `<!doctype html><title>svc</title><p>${ok ? 'Signed in. You can close this tab and return to the terminal.' : 'Sign-in was not completed.'}</p>`,
        {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        },
      );
    },
  });
  try {
    const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
    const reg = await fetchFn(meta.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'svc command line', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    const client = (await reg.json()) as Record<string, string>;
    if (!reg.ok) throw new Error(`Client registration failed: ${client.error_description ?? reg.status}`);

    const verifier = random(32);
    const challenge = b64url(new Uint8Array(new Bun.CryptoHasher('sha256').update(verifier).digest()));
    const state = random(16);
    const auth = new URL(meta.authorization_endpoint);
    const params: Record<string, string> = {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${base}/agent/mcp`,
      ...(opts.scope ? { scope: opts.scope } : {}),
    };
    for (const [k, v] of Object.entries(params)) auth.searchParams.set(k, v);
    (opts.show ?? ((u) => process.stderr.write(`Open this URL in your browser to sign in:\n\n  ${u}\n\nWaiting for the browser...\n`)))(
      auth.toString(),
    );

    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error('No answer from the browser in time; run svc login again.')), opts.timeoutMs ?? 300_000)),
    );
    const answer = await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    if (answer.get('state') !== state) throw new Error("The browser's answer does not match this login (state differs); run svc login again.");
    const code = answer.get('code');
    if (!code) throw new Error(`Sign-in refused: ${answer.get('error') ?? 'no code'} ${answer.get('error_description') ?? ''}`.trim());
    const tokens = await postForm(
      meta.token_endpoint,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: client.client_id,
        resource: `${base}/agent/mcp`,
      },
      fetchFn,
    );
    return toSession(client.client_id, meta.token_endpoint, tokens, Date.now());
  } finally {
    // Not forced: the browser still receives its "you can close this tab" page.
    void listener.stop();
  }
}

/**
 * A current access token from the saved session: refreshed (and the rotated pair saved, 0600)
 * when it expires within a minute. Concurrent callers share one refresh: a refresh token is good
 * once, and using it twice would revoke the session.
 */
export function sessionCredential(file: string, fetchFn: typeof fetch = fetch): () => Promise<string> {
  let refreshing: Promise<string> | undefined;
  return async () => {
    const saved = readSession(file);
    const s = saved?.oauth;
    if (!saved || !s) throw new Error('No sign-in session: run svc login --url URL.');
    if (s.expires_at - 60_000 > Date.now()) return s.access_token;
    refreshing ??= (async () => {
      try {
        const t = await postForm(s.token_endpoint, { grant_type: 'refresh_token', refresh_token: s.refresh_token, client_id: s.client_id }, fetchFn);
        const next = toSession(s.client_id, s.token_endpoint, t, Date.now());
        saveSession(file, { ...saved, oauth: next });
        return next.access_token;
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };
}
