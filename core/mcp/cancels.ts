import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Db } from '../db/types';
import { keyOf, listenOnce } from './answers';

/**
 * A client's `notifications/cancelled` for a call still running (MCP: the receiver should stop
 * it). It is POSTed to /agent/mcp like anything else and may land on another api process than the
 * call's (sessions need not be sticky): there it is announced on CANCEL_CHANNEL (LISTEN/NOTIFY on
 * PostgreSQL, in process on PGlite) and the process holding the call takes it. A cancellation is a
 * hint, kept nowhere: one for a call that already answered changes nothing.
 *
 * Only calls answered over SSE are held (those that wait on the client or on an approver): the
 * SDK aborts the call's signal, which ends the waits, and the call's stream is ended with no
 * answer, as the protocol has it. A plain JSON call is over before a cancellation could arrive.
 */
const CANCEL_CHANNEL = 'svc_mcp_cancel';

type Id = string | number;

export interface CancelRoute {
  /** While request `id` of `sessionId` runs on `transport`: a cancellation for it, from any process, stops it. Returns the release. */
  hold(transport: Transport, sessionId: string, id: Id): () => void;
  /** A cancellation the client POSTed: to the call running here, or announced to the others. */
  route(sessionId: string, id: Id, reason: string | undefined): Promise<void>;
  /** Listening (once), so a cancellation landing on another process is heard. */
  start(): Promise<void>;
}

/** One route per api process (its Services): the calls it holds are its own. */
export function cancelRoute(db: Db): CancelRoute {
  const running = new Map<string, (reason?: string) => void>();
  const listen = listenOnce(db, CANCEL_CHANNEL, (payload) => {
    try {
      const { key, reason } = JSON.parse(payload);
      running.get(String(key))?.(typeof reason === 'string' ? reason : undefined);
    } catch {}
  });
  return {
    hold(transport, sessionId, id) {
      const key = keyOf(sessionId, id);
      const release = () => void running.delete(key);
      running.set(key, (reason) => {
        release();
        // As the SDK hears it from a client: it aborts the handler's signal and sends no answer.
        transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
        void transport.close().catch(() => {});
      });
      // Answered: nothing left to cancel.
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        if ('id' in message && message.id === id && !('method' in message)) release();
        return send(message, options);
      };
      return release;
    },
    async route(sessionId, id, reason) {
      const key = keyOf(sessionId, id);
      const cancel = running.get(key);
      if (cancel) return cancel(reason);
      await db.query(`SELECT pg_notify('${CANCEL_CHANNEL}', $1)`, [JSON.stringify({ key, reason })]);
    },
    async start() {
      await listen();
    },
  };
}
