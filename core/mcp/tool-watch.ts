import type { Db } from '../db/types';

/**
 * tools/list_changed across processes. A tool changed through this process is announced at once
 * (notifyToolsChanged); one changed through another API process on the same PostgreSQL (or by hand
 * in the database) is noticed here: while this process holds open MCP streams, it fingerprints the
 * custom tools their stores can use every POLL_MS and announces a store whose fingerprint moved.
 */
export const POLL_MS = 2000;

// Count and newest change of the tools a store can use (its own and the public ones it enabled),
// and its newest enablement: a create, an update, a delete, an enable, a disable and an unpublish
// each move it.
const FINGERPRINTS = `SELECT s.id AS store_id,
    (SELECT count(*) || '/' || coalesce(max(updated_at)::text, '') FROM custom_tools t
      WHERE t.store_id = s.id
         OR (t.visibility = 'public' AND t.id IN (SELECT e.tool_id FROM custom_tool_enablements e WHERE e.store_id = s.id)))
    || '/' || (SELECT coalesce(max(created_at)::text, '') FROM custom_tool_enablements e WHERE e.store_id = s.id) AS fingerprint
  FROM unnest($1::text::uuid[]) AS s(id)`;

/** The open streams' sessions, and what to do with those terminated meanwhile (through another process). */
export interface SessionWatch {
  ids: () => string[];
  ended: (ids: string[]) => void;
}

export function watchToolChanges(db: Db, stores: () => string[], changed: (storeIds: string[]) => void, sessions?: SessionWatch) {
  const seen = new Map<string, string>();
  let timer: Timer | undefined;
  let polling = false;

  async function poll() {
    const watched = [...new Set(stores())];
    if (!watched.length) return stop();
    if (polling) return;
    polling = true;
    try {
      const rows = await db.query<{ store_id: string; fingerprint: string }>(FINGERPRINTS, [`{${watched.join(',')}}`]);
      const moved: string[] = [];
      for (const { store_id, fingerprint } of rows) {
        const before = seen.get(store_id);
        seen.set(store_id, fingerprint);
        if (before !== undefined && before !== fingerprint) moved.push(store_id);
      }
      changed(moved);
      for (const id of seen.keys()) if (!watched.includes(id)) seen.delete(id);
      // A session ended through another process: its stream here ends too (same tick, no timer of its own).
      const open = sessions?.ids() ?? [];
      if (open.length) {
        const alive = new Set((await db.query<{ id: string }>('SELECT id FROM mcp_sessions WHERE id = ANY($1::text::text[])', [`{${open.join(',')}}`])).map((r) => r.id));
        const ended = open.filter((id) => !alive.has(id));
        if (ended.length) sessions!.ended(ended);
      }
    } catch {
      // The database is briefly unreachable: try again at the next tick.
    } finally {
      polling = false;
    }
  }

  function stop() {
    clearInterval(timer);
    timer = undefined;
    seen.clear();
  }

  return {
    /** A stream opened: make sure the watch runs (and learn the store's current state now). */
    start() {
      if (!timer) {
        timer = setInterval(poll, POLL_MS);
        timer.unref();
      }
      void poll();
    },
    stop,
  };
}
