import type { Db } from './types';
import { RUN, timedQuery } from './traced';

/**
 * Real PostgreSQL through Bun's built-in SQL client. Chosen over postgres.js by measurement:
 * postgres.js's pooled queue decays in long-running processes (see README, Storage).
 */
export function postgresDb(url: string, max = 10): Db {
  const sql = new Bun.SQL(url, { max, idleTimeout: 30 });
  const wrap = (conn: any, inTx: boolean): Db => {
    const run = (text: string, params: unknown[]) => conn.unsafe(text, params);
    return {
      kind: 'postgres',
      native: { sql },
      query(text, params = []) {
        return timedQuery(run, text, params, undefined);
      },
      [RUN]: run,
      async transaction(fn) {
        if (inTx) return fn(this);
        return sql.begin((tx: any) => fn(wrap(tx, true))) as any;
      },
      async exec(text) {
        await conn.unsafe(text);
      },
      async close() {
        if (!inTx) await sql.close();
      },
      async listen(channel, onPayload) {
        // Bun.SQL keeps one dedicated connection for every LISTEN and re-subscribes after a drop.
        const sub = await (sql as any).listen(channel, (payload: string) => onPayload(payload));
        return () => sub.unlisten();
      },
    } as Db;
  };
  return wrap(sql, false);
}
