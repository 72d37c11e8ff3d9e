import type { TSchema } from '@sinclair/typebox';
import type { Principal, Store } from './principal';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * How an action is reached over HTTP. The defaults are the common case: a store-scoped JSON route
 * behind an API key (or a user's token).
 */
export interface RestMapping {
  method: HttpMethod;
  /**
   * Store routes: relative to /v1/stores/:storeId. Global routes: the full path (`/auth/login`,
   * `/s/:code`). `:name` path parameters become input fields.
   */
  path: string;
  status?: number;
  /**
   * Who may call: `api_key` (default; a user's token is accepted too), `user` (a signed-in user only), `admin` (the operator token), `public` (anyone).
   * A list admits each kind named, exactly as written: `['admin', 'api_key', 'user']` is one route the operator and the store's own credentials share
   * (the store's key routes), since two routes may not have the same method and path.
   */
  auth?: AuthKind | AuthKind[];
  /** `store` (default): under /v1/stores/:storeId; `global`: the path as written. */
  scope?: 'store' | 'global';
  /**
   * A global route acting on the store the request's Host names (core/hosts.ts: a claimed
   * hostname, or the instance's only store); none is 404, and a store credential of another
   * store is 404 too (the agentic endpoints, issue 50).
   */
  host?: boolean;
  /**
   * `own`: the handler keeps its own Idempotency-Key rules (a protocol that fixes other answers
   * than SPEC 7's, such as ACP), so the core neither reads the header nor replays.
   */
  idempotency?: 'own';
  /**
   * `json` (default): a JSON object merged with path and query parameters. `raw`: the handler gets
   * `input.body` as bytes with `input.content_type`. `multipart`: `input.form` (a FormData).
   * `form`: an URL-encoded form as a plain object (HTML forms, OAuth token requests).
   */
  body?: 'json' | 'raw' | 'multipart' | 'form';
  /**
   * `json` (default): the value becomes the JSON body. `raw`: the handler returns a Response
   * (an SSE stream, an image, a page, a redirect). A raw action runs outside any transaction (a
   * stream outlives one): it writes in its own short transactions and records events with
   * `emitEvents`. It is a tool for agents and MCP clients only when `asTool` says in which form.
   */
  response?: 'json' | 'raw';
  /**
   * How a raw answer reaches agents and MCP clients (plugins/README.md, "Raw answers over MCP"):
   * `image` (image/png, image/jpeg, image/webp, image/svg+xml) as MCP image content; `link` (a
   * read only: a PDF, a CSV, a ZIP) as a signed link `{url, expires_at}` that runs the action again
   * without a credential until it expires. Without it a raw action (a stream, a page) is REST only.
   */
  asTool?: 'image' | 'link';
  /** How long this action's signed links work, in seconds (`asTool: 'link'`); default SVC_SIGNED_URL_TTL_S. */
  linkTtlS?: number;
  /** The media type of a raw answer, for OpenAPI (`text/event-stream`, `image/png`, `text/html`). */
  contentType?: string;
  /**
   * The API version that added this route (SPEC 9, e.g. `v2026-01-15`). A request pinned to an
   * older version with X-API-Version gets 404, as that version's snapshot had no such endpoint.
   * Routes without it exist in every version.
   */
  since?: string;
  /**
   * A raw answer that may instead be one JSON object (the client asks for it, e.g. agent chat with
   * `Accept: application/json`): that object's schema, documented as the `application/json` content.
   */
  jsonOutput?: TSchema;
}

/** Who a route lets in: the kinds of principal its declaration accepts. */
export type AuthKind = 'api_key' | 'user' | 'admin' | 'public';

export interface Authenticated {
  principal: Principal;
  /** The credential's store (API keys and user tokens are bound to one). */
  store?: Store;
}

/**
 * One way of proving who is calling. Each looks at the request and either claims it (and then
 * resolves it, or throws 401) or passes; the first that claims it decides. Plugins that bring a
 * new kind of credential (users' tokens) add theirs to `Services.authenticators`.
 */
export interface Authenticator {
  kind: AuthKind;
  claims(credential: string): boolean;
  /**
   * `request`: the request carrying it, for checks that need it (a token's audience is this server).
   * May answer synchronously (a cached API key: no promise per request on the hot path).
   */
  resolve(credential: string, request?: Request): Authenticated | Promise<Authenticated>;
  /**
   * The `WWW-Authenticate` value a 401 answer should carry so a client can find its way to a
   * credential of this kind (OAuth: RFC 9728 `resource_metadata`); the first one given is used.
   */
  challenge?(request: Request): string;
}
