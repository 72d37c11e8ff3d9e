/**
 * The one error table. Handlers throw these; each transport maps them once
 * (HTTP: status + SPEC 7 envelope; MCP: an isError result; jobs: retry or fail).
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'store_mismatch_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'api_error';

export class SvcError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    /** Extra response headers (Retry-After ...). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  /** 429 and 5xx may be retried by the caller (SPEC 7 retry rules). */
  get retryable() {
    return this.status === 429 || this.status >= 500;
  }
}

export const errors = {
  validation: (message: string, param: string | null = null) =>
    new SvcError(400, 'invalid_request_error', 'validation_failed', message, param),
  badRequest: (code: string, message: string, param: string | null = null) =>
    new SvcError(400, 'invalid_request_error', code, message, param),
  auth: (message = 'Invalid API key provided.') => new SvcError(401, 'authentication_error', 'invalid_api_key', message),
  scope: (needed: string[]) =>
    new SvcError(403, 'permission_error', 'insufficient_scope', `This API key lacks the required scope: one of ${needed.join(', ')}.`),
  storeMismatch: () =>
    new SvcError(403, 'store_mismatch_error', 'store_mismatch', 'The store in the URL differs from the API key\'s store.', 'store_id'),
  notFound: (what: string, param: string | null = null) =>
    new SvcError(404, 'not_found_error', 'resource_missing', `No such ${what}.`, param),
  conflict: (message: string, code = 'conflict_error', param: string | null = null) =>
    new SvcError(409, 'conflict_error', code, message, param),
  rateLimited: (retryAfterSeconds: number) =>
    new SvcError(429, 'rate_limit_error', 'rate_limit_exceeded', 'Too many requests; retry after the Retry-After delay.', null, {
      'Retry-After': String(retryAfterSeconds),
    }),
  gone: (message: string) => new SvcError(410, 'invalid_request_error', 'api_version_retired', message, 'X-API-Version'),
  internal: () => new SvcError(500, 'api_error', 'internal_error', 'An unexpected error occurred. Retry with backoff.'),
  /** 503: a dependency or configuration the server needs is missing (e.g. secret_key_missing). */
  unavailable: (code: string, message: string) => new SvcError(503, 'api_error', code, message),
};

/** Anything that is not an SvcError becomes a 500 with no detail (no stack, no SQL). */
export function toSvcError(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  return errors.internal();
}
