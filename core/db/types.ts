/** The one database interface every part of svc uses, whichever backend is behind it. */
export interface Db {
  readonly kind: 'pglite' | 'postgres';
  /** Runs one parameterized statement ($1, $2 ...) and returns its rows. */
  query<T = Record<string, any>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs fn in one transaction; inside a transaction this simply reuses it (no nesting). */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(text: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Listens on a PostgreSQL notification channel (LISTEN/NOTIFY): `onPayload` runs for each
   * `pg_notify(channel, payload)` committed by any connection. Resolves once listening, with the
   * function that stops.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** The driver underneath, for libraries that bring their own adapter (pg-boss). */
  readonly native: { pglite: unknown } | { sql: unknown };
}
