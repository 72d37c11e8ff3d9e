import type { Db } from './types';

export interface Migration {
  /** Unique and stable: `<owner>/<number>_<name>`, e.g. `products/001_init`. */
  id: string;
  sql: string;
}

// Any constant works; it only has to be the same in every svc process.
const MIGRATION_LOCK = 7_105_115_099;

/** A migration's text changed after it was applied: the database no longer matches the code. */
export class MigrationChanged extends Error {
  constructor(readonly ids: string[]) {
    super(
      `Applied migration${ids.length > 1 ? 's' : ''} changed since ${ids.length > 1 ? 'they' : 'it'} ran: ${ids.map(migrationFile).join(', ')}. ` +
        'A released migration must never be edited: restore its text and put the change in a new migration.',
    );
  }
}

/** Where a migration's SQL lives in the source: core/db/migrations/… or plugins/<owner>/migrations/…. */
export function migrationFile(id: string): string {
  const [owner, name] = id.split('/');
  return owner === 'core' ? `core/db/migrations/${name}.sql` : `plugins/${owner}/migrations/${name}.sql`;
}

export const checksumOf = (sql: string) => new Bun.CryptoHasher('sha256').update(sql).digest('hex');

/**
 * Applies the migrations not yet recorded, in the order given. The advisory lock makes two
 * processes starting at once take turns: the second finds the work done and applies nothing.
 * An applied migration whose text changed since is refused before anything runs (MigrationChanged).
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec('CREATE TABLE IF NOT EXISTS svc_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    // `checksum` exists once core/014 ran; before that, every row reads as unrecorded.
    const rows = await tx.query<{ id: string; checksum?: string | null }>('SELECT * FROM svc_migrations');
    const done = new Map(rows.map((r) => [r.id, r.checksum ?? null]));
    const changed = migrations.filter((m) => {
      const recorded = done.get(m.id);
      return recorded && recorded !== checksumOf(m.sql);
    });
    if (changed.length) throw new MigrationChanged(changed.map((m) => m.id));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO svc_migrations (id) VALUES ($1)', [m.id]);
      done.set(m.id, null);
      applied.push(m.id);
    }
    // Fills what is not recorded yet: rows applied before the column existed, and those just applied.
    const unrecorded = migrations.filter((m) => done.get(m.id) === null);
    if (unrecorded.length && (await hasChecksumColumn(tx)))
      for (const m of unrecorded)
        await tx.query('UPDATE svc_migrations SET checksum = $2 WHERE id = $1 AND checksum IS NULL', [m.id, checksumOf(m.sql)]);
    return applied;
  });
}

async function hasChecksumColumn(tx: Pick<Db, 'query'>): Promise<boolean> {
  const rows = await tx.query(
    `SELECT 1 FROM information_schema.columns WHERE table_name = 'svc_migrations' AND column_name = 'checksum' AND table_schema = current_schema()`,
  );
  return rows.length > 0;
}
