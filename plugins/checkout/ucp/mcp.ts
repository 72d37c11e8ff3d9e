/**
 * The UCP MCP binding (checkout-mcp.md, order-mcp.md, catalog/mcp.md) at `/ucp/mcp`, a Streamable
 * HTTP endpoint of its own: stateless JSON-RPC over POST, answered as JSON. Its tools are the spec's
 * names (create_checkout, get_order, search_catalog, ...), which never mix with svc's own MCP
 * server and its 54 tools. Arguments are `{meta: {"ucp-agent": {profile}, "idempotency-key"?}, id?,
 * checkout | catalog}`; results carry the UCP response in `structuredContent` and as text. Protocol
 * errors are JSON-RPC errors with the spec's codes (-32001 discovery, -32000 the rest) and the
 * matching HTTP status.
 */
import type { Ctx } from '../../../core/sdk';
import { identifyAgent } from './agent';
import { allowInsecure } from './config';
import { ucpFail, UcpError } from './errors';
import { parseBody, perform } from './http';
import { idempotencyKey } from './idempotency';
import { storeKeys } from './keys';
import { OPERATIONS, WRITES, type Op } from './operations';
import { UCP_VERSION } from './profiles';
import { agenticScope } from './scope';
import { signMessage } from './signatures';

type Json = Record<string, any>;

const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

const DESCRIPTIONS: Record<Op, string> = {
  create_checkout: 'Create a checkout session from line items (and optionally buyer, fulfillment, discounts).',
  get_checkout: 'Get a checkout session by id.',
  update_checkout: 'Replace a checkout session (line items, buyer, fulfillment address and option, discount codes).',
  complete_checkout: 'Place the order with a payment instrument of an advertised handler. Needs meta["idempotency-key"].',
  cancel_checkout: 'Cancel a checkout session. Needs meta["idempotency-key"].',
  get_order: 'Get the current state of an order placed through a checkout of this agent.',
  search_catalog: 'Search the catalog by free text.',
  lookup_catalog: 'Look products up by product or variant ids.',
  get_product: 'Get one product in full by product or variant id.',
};

const meta = {
  type: 'object',
  properties: {
    'ucp-agent': { type: 'object', properties: { profile: { type: 'string', format: 'uri' } }, required: ['profile'] },
    'idempotency-key': { type: 'string' },
  },
  required: ['ucp-agent'],
};

function inputSchema(op: Op): Json {
  const withId = op !== 'create_checkout' && !op.endsWith('_catalog') && op !== 'get_product';
  const payload =
    op.startsWith('get_') && op !== 'get_product' ? undefined : op.endsWith('_catalog') || op === 'get_product' ? 'catalog' : 'checkout';
  const needsPayload = payload && op !== 'cancel_checkout';
  return {
    type: 'object',
    properties: { meta, ...(withId ? { id: { type: 'string' } } : {}), ...(payload ? { [payload]: { type: 'object' } } : {}) },
    required: ['meta', ...(withId ? ['id'] : []), ...(needsPayload ? [payload] : [])],
  };
}

export const UCP_MCP_TOOLS = OPERATIONS.map((op) => ({ name: op, description: DESCRIPTIONS[op], inputSchema: inputSchema(op) }));

const rpc = (id: unknown, body: Json, status = 200, headers: Headers = new Headers()) => {
  headers.set('content-type', 'application/json');
  return { status, text: JSON.stringify({ jsonrpc: '2.0', id: id ?? null, ...body }), headers };
};
const rpcError = (id: unknown, code: number, message: string, data?: Json, status = 200) =>
  rpc(id, { error: { code, message, ...(data ? { data } : {}) } }, status);

/** A UcpError as the MCP binding answers it (overview.md "Transport Bindings", MCP). */
function protocolError(id: unknown, err: UcpError) {
  const message = err.mcpCode === -32001 ? 'UCP discovery failed' : err.code === 'invalid_request' ? 'Invalid params' : 'UCP request refused';
  const data = { ...err.body(), ...(err.extra.retry_after ? { retry_after: err.extra.retry_after } : {}) };
  const out = rpcError(id, err.code === 'invalid_request' ? -32602 : err.mcpCode, message, data, err.status);
  if (err.extra.retry_after) out.headers.set('retry-after', String(err.extra.retry_after));
  return out;
}

async function toolCall(ctx: Ctx, request: Request, body: Uint8Array, id: unknown, params: Json) {
  const op = params?.name as Op;
  if (!OPERATIONS.includes(op))
    return rpcError(id, -32602, `Unknown tool: ${String(params?.name)}. This endpoint serves UCP's tools: ${OPERATIONS.join(', ')}.`);
  const args: Json = params.arguments && typeof params.arguments === 'object' ? params.arguments : {};
  const profile = args.meta?.['ucp-agent']?.profile;
  if (typeof profile !== 'string') throw ucpFail('invalid_profile_url', 'meta["ucp-agent"].profile is required on every UCP tool call.');
  const scope = await agenticScope(ctx);
  const agent = await identifyAgent({
    request,
    body,
    settings: scope.settings,
    allowInsecure: allowInsecure(ctx.config),
    now: ctx.clock.now().getTime(),
    metaProfile: profile,
  });
  const key = WRITES.has(op) ? idempotencyKey(args.meta['idempotency-key'] ?? request.headers.get('idempotency-key')) : undefined;
  if (!key && (op === 'complete_checkout' || op === 'cancel_checkout')) throw ucpFail('invalid_request', `${op} needs meta["idempotency-key"].`);
  const payload = op.endsWith('_catalog') || op === 'get_product' ? (args.catalog ?? {}) : args.checkout;
  if (op !== 'create_checkout' && WRITES.has(op) && payload && typeof payload === 'object' && 'id' in payload) {
    throw ucpFail('invalid_request', 'The checkout object must not carry an id: name the session with the top-level id.');
  }
  const out = await perform(ctx, scope, agent, op, typeof args.id === 'string' ? args.id : undefined, payload, key);
  const result = {
    structuredContent: out.body,
    content: [{ type: 'text', text: JSON.stringify(out.body) }],
    ...(out.status >= 400 ? { isError: true } : {}),
  };
  const answer = rpc(id, { result });
  if (op === 'complete_checkout') {
    const keys = await storeKeys(ctx.db, scope.store.id, ctx.clock);
    await signMessage({ status: 200, headers: answer.headers }, answer.text, keys.signing, Math.floor(ctx.clock.now().getTime() / 1000));
  }
  return answer;
}

/** One JSON-RPC message of `/ucp/mcp` (its route is declared in actions.ts). */
export async function handle(ctx: Ctx, body: Uint8Array) {
  const request = ctx.http!.request;
  let msg: Json;
  try {
    msg = parseBody(body) as Json;
  } catch {
    return rpcError(null, -32700, 'Parse error', undefined, 400);
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
    return rpcError((msg as Json | undefined)?.id, -32600, 'Invalid Request: one JSON-RPC 2.0 message per POST.', undefined, 400);
  }
  // A notification (no id) is acknowledged with 202 and no body (Streamable HTTP).
  if (msg.id === undefined) return { status: 202, text: '', headers: new Headers() };
  try {
    switch (msg.method) {
      case 'initialize': {
        const asked = msg.params?.protocolVersion;
        return rpc(msg.id, {
          result: {
            protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
            capabilities: { tools: { listChanged: false } },
            serverInfo: { name: 'svc-ucp', version: UCP_VERSION },
            instructions: 'UCP 2026-04-08 shopping tools of this store. Every call names the agent profile in meta["ucp-agent"].profile.',
          },
        });
      }
      case 'ping':
        return rpc(msg.id, { result: {} });
      case 'tools/list':
        return rpc(msg.id, { result: { tools: UCP_MCP_TOOLS } });
      case 'tools/call':
        return await toolCall(ctx, request, body, msg.id, msg.params ?? {});
      default:
        return rpcError(msg.id, -32601, `Method not found: ${msg.method}`);
    }
  } catch (err) {
    if (err instanceof UcpError) return protocolError(msg.id, err);
    throw err;
  }
}
