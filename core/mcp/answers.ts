import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Db } from '../db/types';
import type { Clock } from '../clock';

/**
 * A client's answers to the requests a call sends it (elicitation/create, sampling/createMessage)
 * come back as JSON-RPC responses POSTed to /agent/mcp, which may land on any api process: sessions
 * need not be sticky. Each request goes out under an id unique to it (every per-request SDK server
 * numbers its own from 0, so two calls of one session would otherwise both ask under id 0), and
 * the process holding the call waits for (session, id). An answer arriving on another process is
 * written to `mcp_answers` and announced on ANSWERS_CHANNEL (LISTEN/NOTIFY on PostgreSQL, in
 * process on PGlite); the waiting process takes it.
 */
export const ANSWERS_CHANNEL = 'svc_mcp_answer';

/** Unclaimed answers (the call ended first, its process died) are dropped after this. */
const KEEP_MS = 60 * 60 * 1000;

type Id = string | number;
/** One JSON-RPC id of one session (a string id and a number id never match). */
export const keyOf = (sessionId: string, id: Id) => `${sessionId} ${typeof id}:${id}`;

/** Listens on `channel` once per route: a failed LISTEN is tried again at the next call. */
export function listenOnce(db: Db, channel: string, onPayload: (payload: string) => void): () => Promise<unknown> {
  let listening: Promise<unknown> | undefined;
  return () =>
    (listening ??= db.listen(channel, onPayload).catch((err) => {
      listening = undefined;
      throw err;
    }));
}
/** An id no other request of the session uses: random, and a safe integer, as clients expect numbers. */
const uniqueId = () => Math.floor(Math.random() * Number.MAX_SAFE_INTEGER);

export interface AnswerRoute {
  /**
   * Sends `transport`'s requests to the client under unique ids and delivers their answers back to
   * it under its own ids, from whichever process they reach. The returned function stops waiting
   * (the call is over: answered, timed out or aborted).
   */
  wire(transport: Transport, sessionId: string): () => void;
  /** A JSON-RPC response the client POSTed: to the call waiting here, or announced to the others. */
  route(storeId: string, sessionId: string, message: { id: Id }): Promise<void>;
  /** Listening (once), so an answer announced after a request was sent is heard. */
  start(): Promise<void>;
}

/** One route per api process (its Services): the calls it holds are its own. */
export function answerRoute(db: Db, clock: Clock): AnswerRoute {
  const waiting = new Map<string, (message: JSONRPCMessage) => void>();
  const listen = listenOnce(db, ANSWERS_CHANNEL, (payload) => {
    try {
      const { id, key } = JSON.parse(payload);
      if (waiting.has(key)) void take(String(id), String(key)).catch(() => {});
    } catch {}
  });

  const take = async (rowId: string, key: string) => {
    const deliver = waiting.get(key);
    if (!deliver) return;
    const [row] = await db.query<{ message: string }>('DELETE FROM mcp_answers WHERE id = $1 RETURNING message', [rowId]);
    if (row) deliver(JSON.parse(row.message));
  };

  return {
    wire(transport, sessionId) {
      const keys = new Set<string>();
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        if (!('method' in message) || !('id' in message)) return send(message, options);
        const own = message.id;
        const id = uniqueId();
        const key = keyOf(sessionId, id);
        keys.add(key);
        waiting.set(key, (answer) => {
          waiting.delete(key);
          keys.delete(key);
          transport.onmessage?.({ ...answer, id: own } as JSONRPCMessage);
        });
        return send({ ...message, id }, options);
      };
      return () => {
        for (const key of keys) waiting.delete(key);
        keys.clear();
      };
    },
    async route(storeId, sessionId, message) {
      const key = keyOf(sessionId, message.id);
      const deliver = waiting.get(key);
      if (deliver) return deliver(message as JSONRPCMessage);
      const now = clock.now();
      await db.query(
        `WITH stale AS (DELETE FROM mcp_answers WHERE created_at < $5),
              kept AS (INSERT INTO mcp_answers (id, store_id, session_id, message, created_at) VALUES ($1, $2, $3, $4, $6) RETURNING id)
         SELECT pg_notify('${ANSWERS_CHANNEL}', json_build_object('id', id, 'key', $7::text)::text) FROM kept`,
        [crypto.randomUUID(), storeId, sessionId, JSON.stringify(message), new Date(now.getTime() - KEEP_MS), now, key],
      );
    },
    async start() {
      await listen();
    },
  };
}
