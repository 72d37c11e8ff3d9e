/**
 * The one error table. Every code svc can answer is declared here (core's) or in a plugin's
 * `errors` (added when the registry is built); call sites name a code, never an HTTP status, and
 * each transport maps the error once: HTTP status + SPEC 7 envelope (core/http/respond.ts), a tool
 * error for MCP and agents (`toToolError`), a retry or failure for jobs.
 */
import { isDatabaseUnavailable } from './db/pg-errors';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'store_mismatch_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ErrorDef {
  status: number;
  type: ErrorType;
  /** What the code means, for the docs (OpenAPI lists it beside the actions that declare it). */
  description: string;
}

const def = (status: number, type: ErrorType, description: string): ErrorDef => ({ status, type, description });
export const invalid = (description: string) => def(400, 'invalid_request_error', description);
export const conflict = (description: string) => def(409, 'conflict_error', description);
export const forbidden = (description: string) => def(403, 'permission_error', description);
/** A plugin's codes: `errors: defineErrors({ duplicate_code: conflict('A coupon with this code exists.') })`. */
export const defineErrors = <T extends Record<string, ErrorDef>>(table: T): T => table;

/** Core's codes (SPEC 7 plus the platform's own). */
export const CORE_ERRORS = defineErrors({
  validation_failed: invalid('A parameter is missing or invalid; `param` names it.'),
  invalid_api_version: invalid('X-API-Version is malformed or unknown.'),
  idempotency_key_reused: invalid('This Idempotency-Key was used with another request body.'),
  request_too_large: def(413, 'invalid_request_error', 'The request body is over the size limit.'),
  method_not_allowed: def(405, 'invalid_request_error', 'The path exists, but not with this method; `Allow` lists the methods.'),
  secret_missing: invalid('A custom tool refers to a secret that is not set.'),
  invalid_cursor: invalid('starting_after or ending_before names no object of this list.'),
  api_version_retired: def(410, 'invalid_request_error', 'This API version is retired.'),
  invalid_api_key: def(401, 'authentication_error', 'The credential is missing, malformed, unknown, revoked or expired.'),
  insufficient_scope: forbidden('The credential lacks a scope this call needs.'),
  plan_required: forbidden("The store's plan is below what this feature requires."),
  store_mismatch: def(403, 'store_mismatch_error', 'The credential belongs to another store than the URL names.'),
  resource_missing: def(404, 'not_found_error', 'No such resource (or it belongs to another store).'),
  conflict_error: conflict("The resource's state does not allow this change."),
  idempotency_key_in_use: conflict('A request with this Idempotency-Key is still running.'),
  concurrent_modification: conflict('Another request changed the resource meanwhile; retry.'),
  already_decided: conflict('The approval was already decided.'),
  approval_expired: conflict('The approval window has closed.'),
  approval_rejected: forbidden('An approver rejected the gated call; it did not run.'),
  client_capability_missing: forbidden('The MCP client did not declare the capability this tool needs (sampling, elicitation) at initialize.'),
  approval_timeout: def(504, 'api_error', 'No approver decided in time; the gated call did not run.'),
  rate_limit_exceeded: def(429, 'rate_limit_error', 'Too many requests; retry after Retry-After seconds.'),
  internal_error: def(500, 'api_error', 'An unexpected error; retry with backoff.'),
  tool_error: def(502, 'api_error', 'A custom tool failed (its endpoint answered an error, or its code threw).'),
  tool_timeout: def(504, 'api_error', 'A custom tool did not finish in time.'),
  signed_link_invalid: forbidden('The signed link was altered, or was not made by this server (SVC_SECRET_KEY).'),
  signed_link_expired: forbidden('The signed link expired (SVC_SIGNED_URL_TTL_S after it was made): call the tool again for a new one.'),
  // A setting the operator has not made is a 400: retrying cannot heal it (SPEC 7 has clients retry
  // 5xx). 503 is kept for what heals by itself (the database back, a provider up again).
  provider_not_configured: invalid(
    'This feature needs a server setting the operator has not made; the message names it (docs/configuration.md lists what each turns on).',
  ),
  provider_error: def(
    502,
    'api_error',
    'An outside provider (a model, search or media service) failed, timed out or answered malformed data; the message names it.',
  ),
  spend_cap_reached: forbidden("The store's provider spend this month has reached the monthly spend cap the operator set."),
  database_unavailable: def(503, 'api_error', 'The database cannot be reached right now; retry after Retry-After seconds.'),
});

const table = new Map<string, ErrorDef>(Object.entries(CORE_ERRORS));

/** Adds a plugin's codes (at registry build); the same code with another meaning fails boot. */
export function registerErrors(owner: string, codes: Record<string, ErrorDef>) {
  for (const [code, d] of Object.entries(codes)) {
    const have = table.get(code);
    if (have && (have.status !== d.status || have.type !== d.type))
      throw new Error(`${owner}: error code '${code}' is already declared with status ${have.status} (${have.type})`);
    table.set(code, d);
  }
}

export const errorDef = (code: string): ErrorDef | undefined => table.get(code);

export class SvcError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    /** Extra response headers (Retry-After, Allow ...). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    const d = table.get(code);
    // An undeclared code is a bug in svc: it surfaces as a 500 rather than an invented status.
    if (!d) throw new Error(`error code '${code}' is not declared in the error table`);
    this.status = d.status;
    this.type = d.type;
  }
  /** 429 and 5xx may be retried by the caller (SPEC 7 retry rules). */
  get retryable() {
    return this.status === 429 || this.status >= 500;
  }
}

/** Any error by its code: `fail('duplicate_sku', 'A product with SKU ... exists.', 'sku')`. */
export const fail = (code: string, message: string, param: string | null = null, headers?: Record<string, string>) =>
  new SvcError(code, message, param, headers);

/** Shorthands for the codes every plugin meets. */
export const errors = {
  validation: (message: string, param: string | null = null) => fail('validation_failed', message, param),
  badRequest: (code: string, message: string, param: string | null = null) => fail(code, message, param),
  auth: (message = 'Invalid API key provided.') => fail('invalid_api_key', message),
  scope: (needed: string[]) => fail('insufficient_scope', `This credential lacks the required scope: one of ${needed.join(', ')}.`),
  storeMismatch: () => fail('store_mismatch', "The store in the URL differs from the credential's store.", 'store_id'),
  notFound: (what: string, param: string | null = null) => fail('resource_missing', `No such ${what}.`, param),
  conflict: (message: string, code = 'conflict_error', param: string | null = null) => fail(code, message, param),
  rateLimited: (retryAfterSeconds: number) =>
    fail('rate_limit_exceeded', 'Too many requests; retry after the Retry-After delay.', null, { 'Retry-After': String(retryAfterSeconds) }),
  gone: (message: string) => fail('api_version_retired', message, 'X-API-Version'),
  internal: () => fail('internal_error', 'An unexpected error occurred. Retry with backoff.'),
  /**
   * 400 provider_not_configured: `setting` (SVC_EMAIL_DNS_ZONE ...) is not set on this server;
   * `purpose` says what needs it. Call it after the ownership checks (another
   * store's id is 404 first) and never on a list or a read: an empty list is still a list.
   */
  notConfigured: (setting: string, purpose?: string) =>
    fail(
      'provider_not_configured',
      `${setting} is not set on this server${purpose ? `: ${purpose}` : ''}. The operator sets it (docs/configuration.md); a retry will not help.`,
    ),
  /** 503 for what heals by itself (a dependency away); a missing setting is notConfigured. */
  unavailable: (code: string, message: string) => fail(code, message),
};

/** Seconds a client is told to wait while the database is unreachable (a restart takes a few). */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * Anything that is not an SvcError becomes a 500 with no detail (no stack, no SQL), except a
 * database out of reach: a 503 the client retries, not a bug of ours.
 */
export function toSvcError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  if (isDatabaseUnavailable(err))
    return fail('database_unavailable', 'The database is unavailable; retry shortly.', null, { 'Retry-After': String(DATABASE_RETRY_AFTER_S) });
  return errors.internal();
}

/** The error as tools show it (MCP isError results, agent tool results, the audit record's output). */
export interface ToolError {
  type: ErrorType;
  code: string;
  message: string;
  param: string | null;
}
export const toToolError = (err: unknown): ToolError => {
  const e = toSvcError(err);
  return { type: e.type, code: e.code, message: e.message, param: e.param };
};
