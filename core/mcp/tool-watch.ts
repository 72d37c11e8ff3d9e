import type { Db } from '../db/types';

/**
 * What other processes changed, heard through PostgreSQL LISTEN/NOTIFY (the database's triggers
 * announce every change on commit: migration core/010). One listening connection per process and
 * database, opened when the first MCP stream opens; nothing polls.
 */
export const TOOLS_CHANNEL = 'svc_tools_changed';
export const SESSIONS_CHANNEL = 'svc_mcp_session_ended';

export interface ChangeHandlers {
  /** A store's tool list changed ('*': a public tool's, which any store may have enabled). */
  toolsChanged: (storeId: string) => void;
  /** An MCP session was deleted. */
  sessionEnded: (sessionId: string) => void;
}

export function watchChanges(db: Db, on: ChangeHandlers) {
  let listening: Promise<unknown> | undefined;
  return {
    /** A stream opened: make sure this process listens (idempotent; a failure is retried at the next stream). */
    start() {
      listening ??= Promise.all([db.listen(TOOLS_CHANNEL, on.toolsChanged), db.listen(SESSIONS_CHANNEL, on.sessionEnded)]).catch(() => {
        listening = undefined;
      });
      return listening;
    },
  };
}
