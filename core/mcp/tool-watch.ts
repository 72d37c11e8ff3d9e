import type { Db } from '../db/types';

/**
 * What other processes changed, heard through PostgreSQL LISTEN/NOTIFY (the database's triggers
 * announce every change on commit: migrations core/010 and 011). One listening connection per
 * process and database, opened at the first MCP request; nothing polls.
 */
export const TOOLS_CHANNEL = 'svc_tools_changed';
export const SESSIONS_CHANNEL = 'svc_mcp_session_ended';
export const SESSION_CHANGES_CHANNEL = 'svc_mcp_session_changed';

export interface ChangeHandlers {
  /** A store's tool list changed ('*': a public tool's, which any store may have enabled). */
  toolsChanged: (storeId: string) => void;
  /** An MCP session was deleted. */
  sessionEnded: (sessionId: string) => void;
  /** An MCP session's options changed. */
  sessionChanged: (sessionId: string) => void;
}

export function watchChanges(db: Db, on: ChangeHandlers) {
  let listening: Promise<unknown> | undefined;
  let live = false;
  return {
    /** Make sure this process listens (idempotent; a failure is retried at the next call). */
    start() {
      listening ??= Promise.all([
        db.listen(TOOLS_CHANNEL, on.toolsChanged),
        db.listen(SESSIONS_CHANNEL, on.sessionEnded),
        db.listen(SESSION_CHANGES_CHANNEL, on.sessionChanged),
      ]).then(
        () => (live = true),
        () => (listening = undefined),
      );
      return listening;
    },
    /** Whether the database's announcements reach this process (what a cache may rely on). */
    get live() {
      return live;
    },
  };
}
