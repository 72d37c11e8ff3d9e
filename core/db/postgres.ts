import type { Db } from './types';
import { tracing } from '../plugins/telemetry';

/**
 * Real PostgreSQL through Bun's built-in SQL client. Chosen over postgres.js by measurement:
 * postgres.js's pooled queue decays in long-running processes (see README, Storage).
 */
export function postgresDb(url: string, max = 10): Db {
  const sql = new Bun.SQL(url, { max, idleTimeout: 30 });
  const wrap = (conn: any, inTx: boolean): Db => ({
    kind: 'postgres',
    native: { sql },
    async query(text, params = []) {
      // A span per query of traced work when a tracer is installed (core/plugins/telemetry.ts).
      const tracer = tracing.tracer;
      const parent = tracer?.queryStart();
      if (!parent) return (await conn.unsafe(text, params)) as any[];
      const t0 = performance.now();
      let rows: any[];
      try {
        rows = await conn.unsafe(text, params);
      } catch (e) {
        tracer!.queryEnd(parent, text, t0, e ?? 'failed');
        throw e;
      }
      tracer!.queryEnd(parent, text, t0);
      return rows;
    },
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
  });
  return wrap(sql, false);
}
