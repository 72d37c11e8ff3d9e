/**
 * In-process signals: a change that other parts of this process must hear about (a revoked key
 * leaving the cache, a store's tools changing for connected MCP clients) is announced here, after
 * the change committed, instead of the changing code importing whoever listens. Listeners in other
 * processes hear it through the database (core/mcp/tool-watch.ts: LISTEN/NOTIFY on PostgreSQL).
 */
type Listener<T> = (value: T) => void;

export interface Signal<T> {
  emit(value: T): void;
  /** Returns the function that stops listening. */
  on(listener: Listener<T>): () => void;
}

export function signal<T>(): Signal<T> {
  const listeners = new Set<Listener<T>>();
  return {
    emit: (value) => {
      for (const l of listeners) l(value);
    },
    on: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

/** An API key was revoked: its hash (caches drop it at once). */
export const keyRevoked = signal<string>();

/** A store's custom tools changed (`'*'`: a public tool, which any store may use). */
export const toolsChanged = signal<string>();
