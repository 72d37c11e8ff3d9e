import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { toSvcError } from '../errors';
import type { Services } from '../http/services';
import { buildMcpServer, toolCallHandler } from './server';
import { fastToolCall } from './fast-call';
import { authenticate } from '../http/auth';
import { credentialId } from '../plugins/contract';
import type { McpSession } from './sessions';
import { resolveCall, type ToolOptions } from '../tools/catalog';
import { missingScope, startingScopes } from './step-up';
import { confirmationFor } from './confirm';
import { freshStoreToolConfig, storeToolConfig } from '../tools/store-config';
import { findCustomTool } from '../tools/custom';
import { endStream, keepOpen, watchFor } from './streams';
import { MAX_JSON_DEPTH, pathParam, tooDeepInText } from '../json-depth';
import { BODY_LIMITS, BodyTooLarge, readLimited, sizeText } from '../http/limits';
import { requestOrigin } from '../net/site';
import { tracing } from '../plugins/telemetry';
import { declaresUi } from './apps';
import { answerRoute, type AnswerRoute } from './answers';
import { cancelRoute, type CancelRoute } from './cancels';

export { MCP_PATH } from './path';
export { openToolStreams } from './streams';
const decoder = new TextDecoder();

const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });

/** Per api process (its Services): the calls waiting for their client's answer, and how answers reach them (core/mcp/answers.ts). */
const answerRoutes = new WeakMap<Services, AnswerRoute>();
function answersOf(svc: Services): AnswerRoute {
  let r = answerRoutes.get(svc);
  if (!r) answerRoutes.set(svc, (r = answerRoute(svc.db, svc.clock)));
  return r;
}
const cancelRoutes = new WeakMap<Services, CancelRoute>();
function cancelsOf(svc: Services): CancelRoute {
  let r = cancelRoutes.get(svc);
  if (!r) cancelRoutes.set(svc, (r = cancelRoute(svc.db)));
  return r;
}

/**
 * A 401's WWW-Authenticate: an authenticator's own (OAuth's points at the protected-resource
 * metadata, RFC 9728, so a client finds the authorization server alone), else a plain Bearer one.
 */
function challenge(svc: Services, request: Request, message: string): string {
  let own = svc.authenticators.find((a) => a.challenge)?.challenge!(request);
  // OAuth: what to ask for first (SEP-835), so a client's first grant is enough to look around.
  if (own) own += `, scope="${startingScopes(svc.registry)}"`;
  const detail =
    request.headers.get('authorization') || request.headers.get('x-api-key')
      ? `, error="invalid_token", error_description="${message.replaceAll('"', "'")}"`
      : '';
  return (own ?? 'Bearer realm="svc"') + detail;
}

/** Verdicts of hostAllowed by (allowed list, Host, Origin): clients send the same few values on every request. */
const hostVerdicts = new WeakMap<string[], Map<string, boolean>>();

/** DNS-rebinding guard: Host and Origin must name an allowed host (localhost by default). */
function hostAllowed(svc: Services, request: Request): boolean {
  const allowed = svc.allowedHosts;
  if (allowed.includes('*')) return true;
  const key = `${request.headers.get('host')}\n${request.headers.get('origin')}`;
  let verdicts = hostVerdicts.get(allowed);
  if (!verdicts) hostVerdicts.set(allowed, (verdicts = new Map()));
  let ok = verdicts.get(key);
  if (ok === undefined) {
    ok = judgeHost(allowed, request);
    if (verdicts.size > 1000) verdicts.clear();
    verdicts.set(key, ok);
  }
  return ok;
}

function judgeHost(allowed: string[], request: Request): boolean {
  const hostOf = (h: string) =>
    h
      .replace(/:\d+$/, '')
      .replace(/^\[|\]$/g, '')
      .toLowerCase();
  const host = request.headers.get('host');
  if (host && !allowed.includes(hostOf(host))) return false;
  const origin = request.headers.get('origin');
  if (origin) {
    try {
      if (!allowed.includes(hostOf(new URL(origin).host))) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Per-connection tool options from the URL (?toolsets=a,b&readonly=true&tools=flat) or X-MCP-* headers. */
export function toolOptions(request: Request, defaultMode: ToolOptions['mode'], known: string[]): ToolOptions | string {
  const url = new URL(request.url);
  const pick = (q: string, h: string) => url.searchParams.get(q) ?? request.headers.get(h) ?? undefined;
  const mode = (pick('tools', 'x-mcp-tools') ?? defaultMode) as ToolOptions['mode'];
  if (mode !== 'flat' && mode !== 'grouped') return `Unknown tools mode '${mode}': use flat or grouped.`;
  const readOnly = /^(1|true|yes)$/i.test(pick('readonly', 'x-mcp-readonly') ?? '');
  const list = pick('toolsets', 'x-mcp-toolsets');
  const toolsets = list
    ? list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
  const unknown = toolsets?.find((t) => !known.includes(t));
  if (unknown) return `Unknown toolset '${unknown}'. Available: ${known.join(', ')}.`;
  return { mode, readOnly, toolsets };
}

/**
 * Whether a tools/call may ask its client mid-call, so it is answered over SSE and never on the
 * fast path: an action declaring `interactive` (ctx.mcp), a built-in action the store's
 * tool-config wants confirmed, a custom tool whose own requires_confirmation is set.
 */
function asksClient(svc: Services, storeId: string, message: { params?: { name?: unknown; arguments?: unknown } }): boolean | Promise<boolean> {
  const { name, arguments: args } = message.params ?? {};
  if (typeof name !== 'string') return false;
  const call = resolveCall(svc.registry, name, args && typeof args === 'object' ? (args as Record<string, unknown>) : {});
  if (!call) return findCustomTool(svc.db, storeId, name).then((tool) => !!tool?.requires_confirmation);
  if (call.actionName && call.plugin.actions[call.actionName]?.interactive) return true;
  // Answered without an await when the store's tool-config is in memory (the common call).
  const config = freshStoreToolConfig(storeId);
  if (config) return !!confirmationFor(svc.registry, config, message);
  return storeToolConfig(svc.db, storeId).then((c) => !!confirmationFor(svc.registry, c, message));
}

/**
 * POST/GET/DELETE /agent/mcp: MCP Streamable HTTP. Sessions are ours (in the database); each
 * request gets a fresh SDK server and a stateless SDK transport, which handle the JSON-RPC and
 * the transport rules (Accept 406, Content-Type 415, parse errors -32700, protocol header).
 */
export async function handleMcp(svc: Services, request: Request): Promise<Response> {
  try {
    return await mcpRequest(svc, request);
  } catch (err) {
    // The database out of reach is the client's to retry (503 with Retry-After), not a crash.
    const e = toSvcError(err);
    if (e.code !== 'database_unavailable') throw err;
    svc.log.warn('database unavailable', { error: (err as Error).message });
    return rpcError(e.status, -32000, e.message, e.headers);
  }
}

async function mcpRequest(svc: Services, request: Request): Promise<Response> {
  if (!hostAllowed(svc, request)) return rpcError(403, -32000, 'Forbidden: Host or Origin not allowed.');
  let auth;
  try {
    // Any store credential: an API key, or a user's access token (an authenticator a plugin brought).
    auth = await authenticate(svc.authenticators, request, ['api_key', 'user']);
    await svc.rateLimiter.check(auth.store!.id, auth.store!.plan);
  } catch (err) {
    const e = toSvcError(err);
    const headers: Record<string, string> = { ...e.headers };
    if (e.status === 401) headers['WWW-Authenticate'] = challenge(svc, request, e.message);
    return rpcError(e.status, -32001, e.message, headers);
  }
  const { principal } = auth;
  const store = auth.store!;
  tracing.tracer?.annotate({ store_id: store.id }); // the request's span is this store's (core/plugins/telemetry.ts)
  // Local bridges name the store they were started for; it must be the key's store.
  const wanted = request.url.includes('?') ? new URL(request.url).searchParams.get('store') : null;
  if (wanted && wanted !== store.id) return rpcError(403, -32001, `store_mismatch: this API key belongs to another store than ${wanted}.`);
  const sid = request.headers.get('mcp-session-id');

  let session: McpSession | undefined;
  if (sid) {
    // Listening (once per process) lets the session's copy in memory stand in for its row.
    const watch = watchFor(svc.db);
    if (!watch.live) await watch.start();
    session = svc.mcpSessions.trusted(sid, watch.live) ?? (await svc.mcpSessions.get(sid, watch.live));
    // A session presented with another credential is as good as unknown.
    if (!session || session.apiKeyId !== credentialId(principal)) return rpcError(404, -32001, 'Session not found');
  }

  if (request.method === 'DELETE') {
    if (!sid) return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    await svc.mcpSessions.delete(sid);
    // The session is over: its open GET stream ends, and is no longer notified (on another process, at its watch's next look).
    await endStream(sid);
    return new Response(null, { status: 200 });
  }
  // A stream opened now would only hold the shutdown up: the client tries again (another process, or this one restarted).
  if (request.method === 'GET' && svc.shutdown?.aborted)
    return rpcError(503, -32000, 'The server is shutting down; reconnect shortly.', { 'Retry-After': '1' });
  if (request.method !== 'POST' && request.method !== 'GET')
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }), {
      status: 405,
      headers: { Allow: 'GET, POST, DELETE', 'Content-Type': 'application/json' },
    });

  let parsedBody: unknown;
  if (request.method === 'POST') {
    let text: string;
    try {
      text = decoder.decode(await readLimited(request, BODY_LIMITS.mcp));
    } catch (e) {
      if (e instanceof BodyTooLarge) return rpcError(413, -32000, `Request body too large (${sizeText(BODY_LIMITS.mcp)} at most).`);
      throw e;
    }
    // Before parsing: message (1) > params (2) > arguments (3) > an argument, which may nest MAX_JSON_DEPTH levels.
    const deep = tooDeepInText(text, MAX_JSON_DEPTH + 3);
    if (deep) {
      const field = deep[0] === 'params' && deep[1] === 'arguments' && deep.length > 2 ? `argument '${deep[2]}'` : `'${pathParam(deep.slice(0, 3))}'`;
      return rpcError(400, -32602, `Invalid params: ${field} is JSON nested more than ${MAX_JSON_DEPTH} levels deep.`);
    }
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return rpcError(400, -32700, 'Parse error: Invalid JSON');
    }
    // JSON-RPC batching was removed from MCP in 2025-06-18; one message per POST.
    if (Array.isArray(parsedBody)) return rpcError(400, -32600, 'Invalid Request: batches are not supported; send one message per request.');
  }

  // The method first: parsing the message (zod) costs more than a whole tools/call on the fast path.
  const initializing = request.method === 'POST' && (parsedBody as { method?: unknown })?.method === 'initialize' && isInitializeRequest(parsedBody);
  if (initializing && sid) return rpcError(400, -32600, 'Invalid Request: initialize must not carry an Mcp-Session-Id');
  if (!initializing && !session) return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');

  if (initializing) {
    const opts = toolOptions(
      request,
      svc.mcpToolsMode,
      svc.registry.plugins.map((p) => p.name),
    );
    if (typeof opts === 'string') return rpcError(400, -32602, opts);
    const requested = (parsedBody as any).params?.protocolVersion;
    // Kept only when declared, so other sessions' options stay as they were. `{}` means form mode.
    const caps = (parsedBody as any).params?.capabilities?.elicitation;
    if (caps && typeof caps === 'object') opts.elicitation = { form: !!caps.form || !caps.url, url: !!caps.url };
    if ((parsedBody as any).params?.capabilities?.sampling) opts.sampling = true;
    session = await svc.mcpSessions.create({
      apiKeyId: credentialId(principal),
      storeId: store.id,
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      // A client declaring MCP Apps gets its views and app tools for the session (core/mcp/apps.ts).
      options: declaresUi((parsedBody as any).params) ? { ...opts, ui: true } : opts,
    });
  }

  // A user's token lacking the scope of the action it calls: step up (403 insufficient_scope), not a
  // tool error. Not for the local bridges (`?store=`): they hold a sign-in they cannot widen alone.
  const scope = request.method === 'POST' && principal.kind === 'user' && !wanted ? missingScope(svc.registry, principal, parsedBody) : undefined;
  if (scope !== undefined) {
    const own = svc.authenticators.find((a) => a.challenge)?.challenge!(request) ?? 'Bearer realm="svc"';
    const metadata = /resource_metadata="[^"]*"/.exec(own)?.[0];
    return rpcError(403, -32001, `insufficient_scope: this call needs one of the scopes it names; re-authorize with scope "${scope}".`, {
      'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"${metadata ? `, ${metadata}` : ''}`,
    });
  }

  const current = session!;
  // The client's answer to a request a call sent it (elicitation, sampling): to that call, on
  // whichever process holds it (sessions need not be sticky).
  const message = parsedBody as any;
  if (sid && message && message.method === undefined && message.id !== undefined && ('result' in message || 'error' in message)) {
    await answersOf(svc).route(store.id, sid, message);
    return new Response(null, { status: 202, headers: { 'Mcp-Session-Id': sid } });
  }
  // The client gave up on a call of its session: to that call, on whichever process holds it.
  if (sid && message?.method === 'notifications/cancelled' && message.id === undefined) {
    const { requestId, reason } = message.params ?? {};
    if (typeof requestId === 'string' || Number.isSafeInteger(requestId))
      await cancelsOf(svc).route(sid, requestId, typeof reason === 'string' ? reason : undefined);
    return new Response(null, { status: 202, headers: { 'Mcp-Session-Id': sid } });
  }
  // A call that may ask its client something does so over the answer's SSE stream (never the fast
  // path); so does any call of an approver whose client takes URL elicitation: a held one sends the approval page.
  let confirming = false;
  if (request.method === 'POST' && message?.method === 'tools/call') {
    confirming = !!current.options.elicitation?.url && principal.kind === 'user' && ['owner', 'admin', 'approver'].includes(principal.role);
    // Awaited only when it is a promise: an await of a plain value still costs a turn of the microtask queue.
    const asks = confirming || asksClient(svc, store.id, message);
    confirming = asks === true || (asks !== false && (await asks));
  }
  // The origin links in answers use (a QR code's scan_url, a signed link): the one this client reached.
  const origin = requestOrigin(svc.registry.site, request);
  const caller = { db: svc.db, clock: svc.clock, registry: svc.registry, log: svc.log, principal, store, origin };
  if (svc.mcpFastPath && !initializing && request.method === 'POST' && !confirming) {
    const fast = await fastToolCall(request, parsedBody, current, toolCallHandler(svc.registry, caller, current.options));
    if (fast) return fast;
  }
  // A call that may ask its client listens for answers (and cancellations) landing on other processes first.
  const streamed = !!current.options.logLevel || confirming;
  if (confirming) await answersOf(svc).start();
  if (streamed) await cancelsOf(svc).start();
  const server = buildMcpServer(svc.registry, caller, current.options, {
    sessionId: current.id,
    logLevel: current.options.logLevel,
    setLogLevel: (logLevel) => svc.mcpSessions.setOptions(current.id, { ...current.options, logLevel }),
    // A question settled (answered, timed out, aborted): its answer is no longer awaited.
    awaiting: (waiting) => void (waiting || unwire()),
  });
  // Plain JSON answers cost far less than an SSE stream per request (the spec lets the server
  // choose); a session that asked for log messages gets SSE, which can carry them.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streamed,
  });
  await server.connect(transport);
  // Its questions to the client go out under ids of their own, answered from any process.
  const unwire = confirming ? answersOf(svc).wire(transport, current.id) : () => {};
  // A streamed call can be cancelled by its client until it answers (or the client leaves).
  if (streamed && request.method === 'POST' && message?.method && message.id !== undefined)
    request.signal.addEventListener('abort', cancelsOf(svc).hold(transport, current.id, message.id), { once: true });
  const response = await transport.handleRequest(request, { parsedBody });

  // A GET stream stays open for notifications. Everything else is done once answered; the server is
  // left to the garbage collector rather than closed, since closing aborts its (finished) requests
  // with errors whose stack traces cost more than the call itself.
  if (request.method === 'GET' && response.ok && response.body) return keepOpen(svc, request, response, current.id, store.id, server, transport);
  response.headers.set('Mcp-Session-Id', current.id);
  return response;
}
