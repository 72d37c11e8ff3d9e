import type { Db } from './types';

/**
 * Holds a lock on (store, key) until the transaction ends: a PostgreSQL transaction advisory lock,
 * for a read-then-write on a row that may not exist yet (nothing to lock FOR UPDATE), such as a
 * counter created on first use or a name claimed once per store. Two transactions locking the same
 * key take turns; other keys and other stores never wait. `db` must be a transaction (an action's
 * ctx.db on a write): outside one the lock would end with the statement.
 *
 * The key is hashed with its store into the two-integer form of the lock, a space of its own (the
 * core's own locks, migrations and Idempotency-Keys, use the one-bigint form). The embedded
 * database runs one transaction at a time, so there the lock never waits; races are proved on
 * PostgreSQL.
 */
export async function lockKey(db: Db, storeId: string, key: string): Promise<void> {
  const h = new Bun.CryptoHasher('sha256').update(`${storeId}\0${key}`).digest();
  await db.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [h.readInt32BE(0), h.readInt32BE(4)]);
}
