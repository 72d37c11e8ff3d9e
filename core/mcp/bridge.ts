import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { INSTRUCTIONS, SERVER_INFO, protocolError } from './server';
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
 * A local MCP server (stdio or legacy SSE) that forwards tools/list and tools/call to a running svc
 * server's /agent/mcp. So the local transports work while that server holds the embedded
 * database, and against a remote server alike; the tool logic exists once, on the server.
 *
 * `onGone` runs when the server went away: its notification stream ended (a server shutting down
 * ends it) and could not be reopened. The stdio bridge then exits, so the MCP client sees its
 * server stop instead of a bridge that answers every call with an error.
 */
export function bridgeServer(upstream: Upstream, log: (line: string) => void, onGone?: () => void): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });
  let client: Promise<Client> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const connect = async () => {
    const url = new URL(MCP_PATH, upstream.url);
    url.search = new URLSearchParams({ ...Object.fromEntries(upstream.query), store: upstream.storeId }).toString();
    const c = new Client({ name: 'svc-bridge', version: SERVER_INFO.version });
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => server.sendToolListChanged());
    // The SDK reports the end of its reconnection attempts only as an error with this message.
    c.onerror = (err) => {
      if (/Maximum reconnection attempts/.test(err?.message ?? '')) {
        log(`svc mcp: the svc server at ${upstream.url} went away.`);
        onGone?.();
      }
    };
    await c.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${upstream.apiKey}` } },
        reconnectionOptions: UPSTREAM_RECONNECT,
        ...(upstream.credential ? { fetch: withCredential(upstream.credential) } : {}),
      }),
    );
    return c;
  };

  /** Calls are serialized: one upstream request at a time, in the order they arrived. */
  const forward = <T>(fn: (c: Client) => Promise<T>): Promise<T> => {
    const run = queue.then(async () => {
      try {
        client ??= connect();
        return await fn(await client);
      } catch (err) {
        // The upstream server's own JSON-RPC error, passed on as it was sent (McpError's message
        // carries an "MCP error <code>: " prefix that our client would otherwise get twice).
        if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed)
          throw protocolError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
        client = undefined; // reconnect on the next call
        throw explain(err, upstream.url, log);
      }
    });
    queue = run.catch(() => {});
    return run;
  };

  server.setRequestHandler(ListToolsRequestSchema, (request) => forward((c) => c.listTools(request.params)));
  server.setRequestHandler(CallToolRequestSchema, (request) => forward((c) => c.callTool(request.params)) as any);
  return server;
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
