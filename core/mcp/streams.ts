import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Services } from '../http/services';
import type { Db } from '../db/types';
import { watchChanges } from './tool-watch';
import { changedTask, watchTasks } from './tasks';
import { subscribersOf, watchResources } from './resources';
import { forgetSession } from './sessions';
import { forgetCustomTools } from '../tools/custom';

/*
 * The open GET streams of this process and what they hear: tools/list_changed, task status and
 * resource updates, announced by the database from any process (core/mcp/http.ts hands a stream
 * here once the SDK transport has opened it). Kept apart from the request handling: none of it
 * runs for a POST.
 */

/** Open GET streams of this process, by session: where tools/list_changed notifications go. */
interface LiveStream {
  storeId: string;
  server: Server;
}
const liveStreams = new Map<string, LiveStream>();

// One watch per process and database: changes committed anywhere (this process included) reach
// the open streams through the database's notifications, once each.
const watches = new WeakMap<Db, ReturnType<typeof watchChanges>>();
export function watchFor(db: Db) {
  let w = watches.get(db);
  if (!w)
    watches.set(
      db,
      (w = watchChanges(db, {
        toolsChanged: (storeId) => {
          forgetCustomTools(storeId); // a cached copy may predate the change
          void sendToolListChanged(storeId);
        },
        sessionEnded: (sessionId) => {
          forgetSession(db, sessionId);
          void endStream(sessionId);
        },
        sessionChanged: (sessionId) => forgetSession(db, sessionId),
      })),
    );
  return w;
}

/** Diagnostics and tests: how many GET streams this process would notify. */
export const openToolStreams = () => liveStreams.size;

/** Forgets a stream, unless the session has since opened another one. */
const forget = (sessionId: string, entry: LiveStream) => {
  if (liveStreams.get(sessionId) === entry) liveStreams.delete(sessionId);
};

/**
 * The GET stream's body, watched: when the client goes away (the body is cancelled, the request
 * aborted) or the stream ends, the entry is forgotten. The SDK transport drops its own side on a
 * cancel but calls no onclose, so without this every stream ever opened would stay in the map.
 */
function watched(response: Response, request: Request, sessionId: string, entry: LiveStream, ended: () => void): Response {
  const done = () => {
    forget(sessionId, entry);
    ended();
  };
  request.signal.addEventListener('abort', done, { once: true });
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

async function sendToolListChanged(storeId: string) {
  await Promise.all(
    [...liveStreams.values()].filter((s) => storeId === '*' || s.storeId === storeId).map((s) => s.server.sendToolListChanged().catch(() => {})),
  );
}

/**
 * notifications/tasks/status: a task changed somewhere (announced by the database); its session's
 * GET stream, when this process holds it, hears the new status.
 */
async function notifyTask(svc: Services, storeId: string, id: string) {
  if (![...liveStreams.values()].some((s) => s.storeId === storeId)) return;
  const changed = await changedTask(svc, storeId, id, (sessionId) => liveStreams.has(sessionId)).catch(() => undefined);
  const live = changed && liveStreams.get(changed.sessionId);
  if (live) await live.server.notification({ method: 'notifications/tasks/status', params: changed.task }).catch(() => {});
}

/** notifications/resources/updated: a subscribed record changed (any process); its sessions' streams here hear it. */
async function notifyResource(svc: Services, storeId: string, type: string, id: string) {
  if (![...liveStreams.values()].some((s) => s.storeId === storeId)) return;
  const subs = await subscribersOf(svc.db, storeId, type, id).catch(() => undefined);
  for (const sessionId of subs?.sessions ?? []) {
    const live = liveStreams.get(sessionId);
    if (live) await live.server.notification({ method: 'notifications/resources/updated', params: { uri: subs!.uri } }).catch(() => {});
  }
}

/** Ends a terminated session's GET stream on this process, if it has one. */
export async function endStream(sessionId: string) {
  const live = liveStreams.get(sessionId);
  if (!live) return;
  liveStreams.delete(sessionId);
  await live.server.close().catch(() => {});
}

/**
 * Keeps a session's GET stream open for notifications: registered as the session's live stream,
 * the database's announcements listened to, and forgotten when the client leaves, the session
 * ends or the process shuts down.
 */
export async function keepOpen(
  svc: Services,
  request: Request,
  response: Response,
  sessionId: string,
  storeId: string,
  server: Server,
  transport: WebStandardStreamableHTTPServerTransport,
): Promise<Response> {
  const entry: LiveStream = { storeId, server };
  liveStreams.set(sessionId, entry);
  // Listening before the stream is handed over, so no change committed after it opened is missed.
  await watchFor(svc.db).start();
  await watchTasks(svc.db, (storeId, id) => void notifyTask(svc, storeId, id));
  await watchResources(svc.db, (storeId, type, id) => void notifyResource(svc, storeId, type, id));
  transport.onclose = () => forget(sessionId, entry);
  // At shutdown the stream ends (closing the server ends it), so the process need not wait for
  // the client to leave; the client reconnects to whichever process serves next.
  const end = () => void server.close().catch(() => {});
  svc.shutdown?.addEventListener('abort', end, { once: true });
  const stream = watched(response, request, sessionId, entry, () => svc.shutdown?.removeEventListener('abort', end));
  stream.headers.set('Mcp-Session-Id', sessionId);
  return stream;
}
