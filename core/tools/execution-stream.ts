import type { Db } from '../db/types';
import { toExecution } from './executions';

/**
 * Live changes of gated tool executions (issue 27: the approvals inbox). The database announces
 * them on commit (migration core/015, LISTEN/NOTIFY), so a call held or decided through any
 * process reaches every open stream in every process; on the embedded PGlite the announcement
 * stays within the one process that owns it. One listening connection per process and database,
 * opened by the first stream.
 */
export const EXECUTIONS_CHANNEL = 'svc_tool_execution_changed';

type Listener = (executionId: string) => void;

interface Hub {
  byStore: Map<string, Set<Listener>>;
  listening?: Promise<unknown>;
}
const hubs = new WeakMap<Db, Hub>();

function hubOf(db: Db): Hub {
  let hub = hubs.get(db);
  if (!hub) hubs.set(db, (hub = { byStore: new Map() }));
  if (!hub.listening) {
    const h = hub;
    h.listening = db
      .listen(EXECUTIONS_CHANNEL, (payload) => {
        let change: { store_id?: string; id?: string };
        try {
          change = JSON.parse(payload);
        } catch {
          return;
        }
        for (const l of h.byStore.get(String(change.store_id)) ?? []) l(String(change.id));
      })
      .catch((err) => {
        h.listening = undefined; // tried again by the next stream
        throw err;
      });
  }
  return hub;
}

/** Calls `onChange(executionId)` for each change in the store, once listening; returns the stop. */
export async function watchExecutions(db: Db, storeId: string, onChange: Listener): Promise<() => void> {
  const hub = hubOf(db);
  let set = hub.byStore.get(storeId);
  if (!set) hub.byStore.set(storeId, (set = new Set()));
  set.add(onChange);
  const stop = () => {
    set!.delete(onChange);
    if (!set!.size) hub.byStore.delete(storeId);
  };
  try {
    await hub.listening;
  } catch (err) {
    stop();
    throw err;
  }
  return stop;
}

export interface StreamOptions {
  db: Db;
  storeId: string;
  /** Ends the stream (the server shutting down): a last `end` event, then the stream closes. */
  shutdown?: AbortSignal;
  keepAliveMs: number;
}

/**
 * GET STORE/tool-executions/stream: server-sent events, each `data:` line one JSON object:
 * `snapshot` (every call pending now, first), `execution` (a gated call changed: held, decided,
 * escalated, run; the whole record), `end` (the server is stopping: reconnect). A comment line
 * every keepAliveMs keeps proxies from closing an idle stream.
 */
export async function executionStream(opts: StreamOptions): Promise<Response> {
  const { db, storeId } = opts;
  const encoder = new TextEncoder();
  let send: (event: object) => void = () => {};
  let closed = false;
  // Changes heard before the snapshot is out are sent after it (never lost between the two).
  const early: string[] = [];
  let ready = false;
  const push = async (id: string) => {
    if (!ready) return void early.push(id);
    const [row] = await db.query('SELECT * FROM tool_executions WHERE store_id = $1 AND id = $2', [storeId, id]).catch(() => []);
    if (row) send({ type: 'execution', execution: toExecution(row) });
  };
  const stop = await watchExecutions(db, storeId, (id) => void push(id));
  let timer: ReturnType<typeof setInterval> | undefined;
  const finish = (controller?: ReadableStreamDefaultController<Uint8Array>) => {
    if (closed) return;
    closed = true;
    stop();
    clearInterval(timer);
    opts.shutdown?.removeEventListener('abort', onShutdown);
    try {
      controller?.close();
    } catch {}
  };
  let onShutdown = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      send = (event) => write(`data: ${JSON.stringify(event)}\n\n`);
      onShutdown = () => {
        send({ type: 'end' });
        finish(controller);
      };
      if (opts.shutdown?.aborted) return onShutdown();
      opts.shutdown?.addEventListener('abort', onShutdown, { once: true });
      timer = setInterval(() => write(': keep-alive\n\n'), opts.keepAliveMs);
      const pending = await db.query(
        `SELECT * FROM tool_executions WHERE store_id = $1 AND status = 'pending_approval' ORDER BY created_at, seq LIMIT 500`,
        [storeId],
      );
      send({ type: 'snapshot', executions: pending.map(toExecution) });
      ready = true;
      for (const id of early.splice(0)) await push(id);
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, {
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
  });
}
