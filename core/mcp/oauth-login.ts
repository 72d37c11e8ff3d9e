import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { withFileLock } from './file-lock';

/**
 * `svc login --url URL` without a key: OAuth 2.1 in the browser, as the gh and gcloud CLIs do,
 * through the MCP SDK's client auth (`auth()`): discovery from the MCP endpoint (RFC 9728, then
 * RFC 8414), registration (RFC 7591) with a loopback redirect on 127.0.0.1 (any port, RFC 8252),
 * PKCE, the code exchange, and later the refresh. What the SDK leaves to its caller is done here:
 * the metadata's `issuer` must be the server discovery named, and the browser's answer must carry
 * our `state` and that issuer as `iss` (RFC 9207, a mix-up defence). The session goes to
 * ~/.svc/session.json (0600); `svc mcp` reads it and refreshes it, under a lock shared with every
 * other process using the same file.
 */
export interface OAuthSession {
  client_id: string;
  access_token: string;
  refresh_token: string;
  /** Epoch milliseconds. */
  expires_at: number;
  scope: string;
  store_id?: string;
  /** The authorization server that issued the tokens: the SDK presents them to no other. */
  issuer?: string;
  /** The client registration, as the SDK keeps it (bound to its issuer). */
  client?: OAuthClientInformationMixed;
  /** Discovery results, so that a refresh needs no discovery. */
  discovery?: OAuthDiscoveryState;
}

export interface SavedSession {
  url: string;
  api_key?: string;
  oauth?: OAuthSession;
}

/** The MCP endpoint of a server: what the tokens are for, and where discovery starts. */
const mcpUrl = (serverUrl: string) => `${serverUrl.replace(/\/+$/, '')}/agent/mcp`;

/** Written whole then renamed into place: a process reading it meanwhile never sees half a file. */
export function saveSession(file: string, session: SavedSession) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
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

/** Two issuer identifiers naming the same server (a trailing `/` and the spelling of the URL aside). */
function sameIssuer(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const norm = (s: string) => {
    try {
      return new URL(s).href.replace(/\/$/, '');
    } catch {
      return s.replace(/\/$/, '');
    }
  };
  return norm(a) === norm(b);
}

/**
 * The SDK's OAuthClientProvider over one session kept in memory: `onSave` persists it. Both the
 * login and the refresh use it; for a refresh, a redirect means the sign-in is over.
 */
class SessionProvider implements OAuthClientProvider {
  session: Partial<OAuthSession>;
  private verifier = '';
  readonly stateValue = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url');

  constructor(
    private readonly opts: {
      redirectUrl: string;
      scope?: string;
      session?: OAuthSession;
      onRedirect: (url: URL) => void;
      onSave?: (session: OAuthSession) => void;
    },
  ) {
    this.session = { ...opts.session };
  }

  get redirectUrl() {
    return this.opts.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'svc command line',
      redirect_uris: [this.opts.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.opts.scope ? { scope: this.opts.scope } : {}),
    };
  }

  state() {
    return this.stateValue;
  }

  clientInformation() {
    const s = this.session;
    return s.client ?? (s.client_id ? { client_id: s.client_id } : undefined);
  }

  saveClientInformation(client: OAuthClientInformationMixed) {
    this.session.client = client;
    this.session.client_id = client.client_id;
  }

  /**
   * A session saved before the SDK kept `issuer` is bound to the server discovery found for its
   * URL (the one it signed in to), as the SDK would bind it, without the SDK's warning.
   */
  tokens(): OAuthTokens | undefined {
    const s = this.session;
    if (!s.access_token) return undefined;
    const issuer = s.issuer ?? s.discovery?.authorizationServerUrl;
    return {
      access_token: s.access_token,
      token_type: 'Bearer',
      refresh_token: s.refresh_token,
      scope: s.scope,
      ...(issuer ? { issuer } : {}),
    };
  }

  saveTokens(t: OAuthTokens) {
    Object.assign(this.session, {
      access_token: t.access_token,
      refresh_token: t.refresh_token ?? this.session.refresh_token,
      expires_at: Date.now() + Number(t.expires_in ?? 3600) * 1000,
      scope: t.scope ?? this.session.scope ?? '',
      store_id: storeOf(t.access_token),
      issuer: t.issuer,
    });
    this.opts.onSave?.(this.session as OAuthSession);
  }

  redirectToAuthorization(url: URL) {
    this.opts.onRedirect(url);
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }

  /** RFC 8414 §3.3: the metadata must name as its issuer the server it was fetched for. */
  saveDiscoveryState(state: OAuthDiscoveryState) {
    const claimed = state.authorizationServerMetadata?.issuer;
    if (!claimed) throw new Error(`No OAuth metadata from ${state.authorizationServerUrl}: is it an svc server, and is it running and reachable?`);
    if (!sameIssuer(claimed, state.authorizationServerUrl))
      throw new Error(`The OAuth metadata of ${state.authorizationServerUrl} names another issuer (${claimed}); refusing to sign in.`);
    this.session.discovery = state;
  }

  discoveryState() {
    return this.session.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') Object.assign(this.session, { access_token: undefined, refresh_token: undefined });
    if (scope === 'all' || scope === 'client') Object.assign(this.session, { client: undefined, client_id: undefined });
    if (scope === 'all' || scope === 'discovery') this.session.discovery = undefined;
  }
}

export interface BrowserLoginOptions {
  /** Exactly the scopes to ask for (space-separated); default: those the MCP endpoint supports, as the SDK does. */
  scope?: string;
  /** Shown the authorization URL (default: printed to stderr). */
  show?: (url: string) => void;
  fetch?: typeof fetch;
  /** Gives up waiting for the browser after this long (default 5 minutes). */
  timeoutMs?: number;
}

export async function browserLogin(serverUrl: string, opts: BrowserLoginOptions = {}): Promise<OAuthSession> {
  const fetchFn = opts.fetch ?? fetch;
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
        { headers: { 'content-type': 'text/html; charset=utf-8' } },
      );
    },
  });
  try {
    const show = opts.show ?? ((u) => process.stderr.write(`Open this URL in your browser to sign in:\n\n  ${u}\n\nWaiting for the browser...\n`));
    const provider = new SessionProvider({
      redirectUrl: `http://127.0.0.1:${listener.port}/callback`,
      scope: opts.scope,
      onRedirect: (url) => show(url.toString()),
    });
    const serverUrlForAuth = mcpUrl(serverUrl);
    // The SDK's scope choice takes its `scope` first: exactly what was asked for.
    if ((await auth(provider, { serverUrl: serverUrlForAuth, scope: opts.scope, fetchFn })) !== 'REDIRECT')
      throw new Error('The server signed us in without a browser; expected an authorization step.');

    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error('No answer from the browser in time; run svc login again.')), opts.timeoutMs ?? 300_000)),
    );
    const answer = await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    if (answer.get('state') !== provider.stateValue)
      throw new Error("The browser's answer does not match this login (state differs); run svc login again.");
    // RFC 9207: the answer names the server that sent it; another one's answer is a mix-up attack.
    const metadata = provider.session.discovery?.authorizationServerMetadata as {
      issuer?: string;
      authorization_response_iss_parameter_supported?: boolean;
    };
    const iss = answer.get('iss');
    if (iss !== null ? !sameIssuer(iss, metadata?.issuer) : metadata?.authorization_response_iss_parameter_supported)
      throw new Error(`The browser's answer comes from ${iss ?? 'an unnamed server'}, not ${metadata?.issuer}; run svc login again.`);
    const code = answer.get('code');
    if (!code) throw new Error(`Sign-in refused: ${answer.get('error') ?? 'no code'} ${answer.get('error_description') ?? ''}`.trim());
    await auth(provider, { serverUrl: serverUrlForAuth, authorizationCode: code, fetchFn });
    return provider.session as OAuthSession;
  } finally {
    // Not forced: the browser still receives its "you can close this tab" page.
    void listener.stop();
  }
}

/** Refreshes are at most this close to the expiry: a token is renewed a minute before it runs out. */
const EARLY_MS = 60_000;

/**
 * A current access token from the saved session, refreshed when it expires within a minute or
 * when the server refused it (`rejected`: the token it refused). Concurrent callers share one
 * refresh, and so do processes: the refresh runs under a lock on the session file and re-reads
 * it once the lock is held, so a token another process refreshed meanwhile is used as it is. A
 * refresh token is good once; using it twice would revoke the whole sign-in.
 */
export function sessionCredential(file: string, fetchFn: typeof fetch = fetch): (rejected?: string) => Promise<string> {
  let refreshing: Promise<string> | undefined;
  return async (rejected?: string) => {
    const seen = readSession(file)?.oauth;
    if (!seen) throw new Error('No sign-in session: run svc login --url URL.');
    const current = (s: OAuthSession) => s.access_token !== rejected && s.expires_at - EARLY_MS > Date.now();
    if (current(seen)) return seen.access_token;
    refreshing ??= withFileLock(`${file}.lock`, async () => {
      const saved = readSession(file);
      const s = saved?.oauth;
      if (!saved || !s) throw new Error('No sign-in session: run svc login --url URL.');
      // Another process (or an earlier call) refreshed while we waited for the lock.
      if (s.access_token !== seen.access_token && current(s)) return s.access_token;
      const provider = new SessionProvider({
        redirectUrl: 'http://127.0.0.1/callback',
        session: s,
        onRedirect: () => {
          throw new Error('The sign-in session has ended (the server refused its refresh); run svc login --url URL again.');
        },
        onSave: (next) => saveSession(file, { ...saved, oauth: next }),
      });
      await auth(provider, { serverUrl: mcpUrl(saved.url), fetchFn });
      return provider.session.access_token!;
    }).finally(() => (refreshing = undefined));
    return refreshing;
  };
}
