import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  ResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InitializeRequest,
  type InitializeResult,
  type JSONRPCRequest,
  type Notification,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO, protocolError } from './server';
import { MCP_PATH } from './http';

export interface Upstream {
  /** Base URL of a running svc server, e.g. http://127.0.0.1:3000 */
  url: string;
  apiKey: string;
  /**
   * A credential that changes (a signed-in user's access token, refreshed): asked for before each
   * request, instead of apiKey; given the token the server refused (401), it returns a renewed one.
   */
  credential?: (rejected?: string) => Promise<string>;
  storeId: string;
  /** Connection options passed on as the hosted endpoint's query (toolsets, readonly, tools). */
  query: URLSearchParams;
}

/**
 * How long the bridge keeps trying to reopen the server's notification stream once it ended
 * (0.5 + 1 + 2 s): a server restarted by its supervisor is back within that, one shut down is not.
 */
export const UPSTREAM_RECONNECT = { initialReconnectionDelay: 500, reconnectionDelayGrowFactor: 2, maxReconnectionDelay: 2000, maxRetries: 3 };

/**
 * Sends each request with the credential current at that moment. A 401 (a token revoked, or
 * expired early by the server's clock) renews it and sends the request once more: the bodies the
 * MCP transport sends are strings, so a request can be sent twice.
 */
const withCredential = (credential: (rejected?: string) => Promise<string>) => async (input: string | URL | Request, init?: RequestInit) => {
  const send = (token: string) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const token = await credential();
  const res = await send(token);
  if (res.status !== 401) return res;
  await res.body?.cancel();
  return send(await credential(token));
};

/**
 * One end of the relay: a JSON-RPC peer that checks nothing itself (what may be asked is for the
 * two far ends to agree), and passes progress on as it came (the SDK's own handler would take it
 * only for requests this side made with a callback).
 */
class Peer extends Protocol<any, any, any> {
  /** Notifications for this side's far end, sent in the order they arrived. */
  outbox: Promise<unknown> = Promise.resolve();
  constructor() {
    super();
    this.removeNotificationHandler('notifications/progress');
  }
  tell(notification: Notification) {
    this.outbox = this.outbox.then(() => this.notification(notification)).catch(() => {});
  }
  protected assertCapabilityForMethod() {}
  protected assertNotificationCapability() {}
  protected assertRequestHandlerCapability() {}
  protected assertTaskCapability() {}
  protected assertTaskHandlerCapability() {}
}

/** How long initialize waits for the server's notification stream to open (a server may offer none). */
const STREAM_WAIT_MS = 5000;

/** Waits for `promise`, or `ms` at most; the timer keeps no process alive. */
async function within(ms: number, promise: Promise<unknown> | undefined) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)).unref?.())]);
  clearTimeout(timer);
}

/** A relayed request waits as long as the asking side does (its own timeout, then its cancellation). */
const NO_TIMEOUT = 2 ** 31 - 1;

/** The other side's JSON-RPC error as it was sent (McpError's message has an "MCP error <code>: " prefix a client would otherwise get twice). */
const asSent = (err: unknown) =>
  err instanceof McpError && err.code !== ErrorCode.ConnectionClosed
    ? protocolError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data)
    : undefined;

/**
 * Sends a request that reached `from` on to `to`, and answers with `to`'s answer once the
 * notifications that came before it (a call's progress and log messages) have gone out: a client
 * drops progress that arrives after its answer. The asker's cancellation goes along (the SDK sends
 * notifications/cancelled when the signal aborts); progress tokens pass unchanged, since each
 * client has its own upstream session.
 */
async function relay(request: JSONRPCRequest, extra: RequestHandlerExtra<any, any>, from: Peer, to: Peer): Promise<Result> {
  const result = await to.request({ method: request.method, params: request.params }, ResultSchema, { signal: extra.signal, timeout: NO_TIMEOUT });
  await from.outbox;
  return result;
}

export interface Bridge {
  connect(transport: Transport): Promise<void>;
  /** Ends the local connection and the upstream session (its resource subscriptions with it). */
  close(): Promise<void>;
}

/**
 * A local MCP server (stdio or legacy SSE) relaying everything to a running svc server's
 * /agent/mcp, so the local transports work while that server holds the embedded database, and
 * against a remote server alike; the logic exists once, on the server.
 *
 * The client's initialize goes upstream as it came (its protocol version and capabilities: the
 * server asks it for elicitation or sampling only when it declared them), and the server's answer
 * comes back as it was (its capabilities, instructions). Then every request, in either direction,
 * goes across by method: tools, resources and their subscriptions, prompts, completion,
 * logging/setLevel, tasks, and the server's elicitation/create, sampling/createMessage or
 * roots/list during a call; notifications too (progress under the asker's token, log messages,
 * list changes, resources/updated, cancellation).
 *
 * `onGone` runs when the server went away: its notification stream ended (a server shutting down
 * ends it) and could not be reopened. The stdio bridge then exits, so the MCP client sees its
 * server stop instead of a bridge that answers every call with an error.
 */
export function bridgeServer(upstream: Upstream, log: (line: string) => void, onGone?: () => void): Bridge {
  type Session = { peer: Peer; result: InitializeResult };
  const local = new Peer();
  let hello: InitializeRequest['params'] | undefined;
  let current: Promise<Session> | undefined;

  const open = async (params: InitializeRequest['params'], onclose: () => void): Promise<Session> => {
    const url = new URL(MCP_PATH, upstream.url);
    url.search = new URLSearchParams({ ...Object.fromEntries(upstream.query), store: upstream.storeId }).toString();
    // The server's notification stream (GET) is open before the client hears initialize answered,
    // so a subscription made at once is heard; a server without one (405) answers at once too.
    const send = upstream.credential ? withCredential(upstream.credential) : fetch;
    let streamOpen!: () => void;
    const listening = new Promise<void>((resolve) => (streamOpen = resolve));
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${upstream.apiKey}` } },
      reconnectionOptions: UPSTREAM_RECONNECT,
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        try {
          return await send(input, init);
        } finally {
          if (init?.method === 'GET') streamOpen();
        }
      },
    });
    const peer = new Peer();
    // What the server asks the client during a call, and what it tells it, goes to the client.
    peer.fallbackRequestHandler = (request, extra) => relay(request, extra, peer, local).catch((err) => Promise.reject(asSent(err) ?? err));
    peer.fallbackNotificationHandler = async (notification) => local.tell(notification);
    // The SDK reports the end of its reconnection attempts only as an error with this message.
    peer.onerror = (err) => {
      if (/Maximum reconnection attempts/.test(err?.message ?? '')) {
        log(`svc mcp: the svc server at ${upstream.url} went away.`);
        onGone?.();
      }
    };
    peer.onclose = onclose;
    await peer.connect(transport);
    try {
      // What the SDK's Client.connect does, with the client's own initialize.
      const result = await peer.request({ method: 'initialize', params }, InitializeResultSchema);
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion))
        throw new Error(`the server's protocol version is not supported: ${result.protocolVersion}`);
      transport.setProtocolVersion(result.protocolVersion);
      await peer.notification({ method: 'notifications/initialized' });
      await within(STREAM_WAIT_MS, listening);
      return { peer, result };
    } catch (err) {
      void peer.close();
      throw err;
    }
  };

  /** The upstream session: opened at the client's initialize, and again (with it) after it failed or ended. */
  const session = (): Promise<Session> => {
    if (current) return current;
    const opening: Promise<Session> = open(hello!, () => forget(opening));
    opening.catch(() => forget(opening));
    return (current = opening);
  };
  const forget = (s: Promise<Session>) => {
    if (current === s) current = undefined;
  };

  local.fallbackRequestHandler = async (request, extra) => {
    if (request.method === 'initialize') {
      hello = request.params as InitializeRequest['params'];
      try {
        return (await session()).result;
      } catch (err) {
        // Answered anyway, so the client starts (a server started later is found at the next
        // request), with what svc's endpoint offers; each request then names the cause.
        explain(err, upstream.url, log);
        const requested = hello.protocolVersion;
        return {
          protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
          capabilities: SERVER_CAPABILITIES,
          serverInfo: SERVER_INFO,
          instructions: INSTRUCTIONS,
        };
      }
    }
    if (!hello) throw protocolError(ErrorCode.InvalidRequest, 'Server not initialized');
    const opening = session();
    let peer: Peer;
    try {
      peer = (await opening).peer;
    } catch (err) {
      throw explain(err, upstream.url, log);
    }
    try {
      return await relay(request, extra, local, peer);
    } catch (err) {
      const sent = asSent(err);
      if (sent) throw sent;
      // The server no longer knows the session (404): the next request opens a new one.
      if ((err as { code?: number }).code === 404) {
        forget(opening);
        void peer.close();
      }
      throw explain(err, upstream.url, log);
    }
  };
  // The client's notifications (its cancellation is the SDK's: it aborts the relayed request, which sends it on).
  local.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/initialized' || !current) return;
    (await current.catch(() => undefined))?.peer.tell(notification);
  };

  /** Ends the upstream session (DELETE), so the server drops its subscriptions at once; waits 2 s at most. */
  let ending: Promise<void> | undefined;
  const end = () =>
    (ending ??= (async () => {
      const s = await current?.catch(() => undefined);
      current = undefined;
      if (!s) return;
      const transport = s.peer.transport as StreamableHTTPClientTransport | undefined;
      await within(
        2000,
        transport?.terminateSession().catch(() => {}),
      );
      await s.peer.close().catch(() => {});
    })());
  local.onclose = () => void end();

  return {
    connect: (transport) => local.connect(transport),
    close: async () => {
      await local.close();
      await end();
    },
  };
}

/** Turns a failed upstream call into a JSON-RPC error a person can act on. */
function explain(err: unknown, url: string, log: (line: string) => void): Error {
  const status = (err as { code?: number }).code;
  const message = (err as Error)?.message ?? String(err);
  log(`svc mcp: upstream ${url} failed: ${message}`);
  // A browser sign-in the server ended (its refresh refused): only a new sign-in helps.
  const signIn = message.match(/(?:No sign-in session|The sign-in session has ended)[^\n]*/);
  if (signIn) return protocolError(ErrorCode.InvalidRequest, signIn[0]);
  if (status === 401 || /\b401\b/.test(message))
    return protocolError(ErrorCode.InvalidRequest, `The svc server at ${url} refused the API key (401). Check SVC_API_KEY or run svc login.`);
  if (status === 403 || /\b403\b/.test(message))
    return protocolError(ErrorCode.InvalidRequest, `The svc server at ${url} refused this store for this API key (403): ${message}`);
  return protocolError(ErrorCode.InternalError, `Cannot reach the svc server at ${url}: ${message}`);
}
