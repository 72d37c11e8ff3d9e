/** PostgreSQL SQLSTATE of a driver error: PGlite puts it in `code`, Bun.SQL in `errno`. */
export function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; errno?: unknown };
  for (const v of [e?.errno, e?.code]) if (typeof v === 'string' && /^[0-9A-Z]{5}$/.test(v)) return v;
  return undefined;
}

export const isUniqueViolation = (err: unknown) => sqlState(err) === '23505';

/** The constraint or unique index an integrity error names (both drivers expose it as `constraint`). */
export const violatedConstraint = (err: unknown): string | undefined => (err as { constraint?: string })?.constraint ?? undefined;
