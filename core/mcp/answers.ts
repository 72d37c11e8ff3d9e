import type { Db } from '../db/types';
import type { Clock } from '../clock';

/**
 * A client's answers to the requests a call sends it (elicitation/create, sampling/createMessage)
 * come back as JSON-RPC responses POSTed to /agent/mcp, which may land on any api process: sessions
 * need not be sticky. The process holding the call waits in its own `waiting` map; an answer
 * arriving elsewhere is written to `mcp_answers` and its id announced on ANSWERS_CHANNEL
 * (LISTEN/NOTIFY on PostgreSQL, in process on PGlite), and the waiting process takes it.
 */
export const ANSWERS_CHANNEL = 'svc_mcp_answer';

/** Unclaimed answers (the call ended first, its process died) are dropped after this. */
const KEEP_MS = 60 * 60 * 1000;

export interface AnswerRoute {
  /** While a call of this process waits for its client's answer: where it goes (undefined: no longer). */
  wait(sessionId: string, deliver: ((message: any) => void) | undefined): void;
  /** A JSON-RPC response the client POSTed: to the call waiting here, or announced to the others. */
  route(storeId: string, sessionId: string, message: unknown): Promise<void>;
  /** Listening (once), so an answer announced after a request was sent is heard. */
  start(): Promise<void>;
}

/** One route per api process (its Services): the calls it holds are its own. */
export function answerRoute(db: Db, clock: Clock): AnswerRoute {
  const waiting = new Map<string, (message: any) => void>();
  let listening: Promise<unknown> | undefined;

  const take = async (id: string, sessionId: string) => {
    const deliver = waiting.get(sessionId);
    if (!deliver) return; // another process's call
    const [row] = await db.query<{ message: string }>('DELETE FROM mcp_answers WHERE id = $1 AND session_id = $2 RETURNING message', [id, sessionId]);
    if (row) deliver(JSON.parse(row.message));
  };

  return {
    wait(sessionId, deliver) {
      if (deliver) waiting.set(sessionId, deliver);
      else waiting.delete(sessionId);
    },
    async route(storeId, sessionId, message) {
      const deliver = waiting.get(sessionId);
      if (deliver) return deliver(message);
      const now = clock.now();
      await db.query(
        `WITH stale AS (DELETE FROM mcp_answers WHERE created_at < $5),
              kept AS (INSERT INTO mcp_answers (id, store_id, session_id, message, created_at) VALUES ($1, $2, $3, $4, $6) RETURNING id)
         SELECT pg_notify('${ANSWERS_CHANNEL}', json_build_object('id', id, 'session_id', $3::text)::text) FROM kept`,
        [crypto.randomUUID(), storeId, sessionId, JSON.stringify(message), new Date(now.getTime() - KEEP_MS), now],
      );
    },
    async start() {
      listening ??= db
        .listen(ANSWERS_CHANNEL, (payload) => {
          try {
            const { id, session_id } = JSON.parse(payload);
            if (waiting.has(session_id)) void take(String(id), String(session_id)).catch(() => {});
          } catch {}
        })
        .catch((err) => {
          listening = undefined;
          throw err;
        });
      await listening;
    },
  };
}
