import type { Db } from './types';

export interface Migration {
  /** Unique and stable: `<owner>/<number>_<name>`, e.g. `products/001_init`. */
  id: string;
  sql: string;
}

// Any constant works; it only has to be the same in every svc process.
const MIGRATION_LOCK = 7_105_115_099;

/**
 * Applies the migrations not yet recorded, in the order given. The advisory lock makes two
 * processes starting at once take turns: the second finds the work done and applies nothing.
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec('CREATE TABLE IF NOT EXISTS svc_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM svc_migrations')).map((r) => r.id));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO svc_migrations (id) VALUES ($1)', [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}
