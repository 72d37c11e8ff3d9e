/** PostgreSQL SQLSTATE of a driver error: PGlite puts it in `code`, Bun.SQL in `errno`. */
export function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown };
  for (const v of [e?.errno, e?.code]) if (typeof v === 'string' && /^[0-9A-Z]{5}$/.test(v)) return v;
  return undefined;
}

export const isUniqueViolation = (err: unknown) => sqlState(err) === '23505';

/** The constraint or unique index an integrity error names (both drivers expose it as `constraint`). */
export const violatedConstraint = (err: unknown): string | undefined => (err as { constraint?: string })?.constraint ?? undefined;

// Bun.SQL's own codes when it cannot reach the server or loses the connection.
const CONNECTION_CODES = new Set([
  'ERR_POSTGRES_CONNECTION_CLOSED',
  'ERR_POSTGRES_CONNECTION_FAILED',
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
]);

/**
 * The database cannot be reached right now (refused, dropped, shutting down or starting up), as
 * opposed to a query that failed: callers answer 503 and retry rather than report a bug.
 * SQLSTATE class 08 is a connection exception; 57P01-57P03 a server stopping or not yet ready.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  const state = sqlState(err);
  return !!state && (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03');
}
