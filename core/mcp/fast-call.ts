import { ErrorCode, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { jsonText } from '../json-text';
import { conventionResponse } from '../http/routes-table';
import type { McpSession } from './sessions';
import type { toolCallHandler } from './server';

const isRecord = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const PLAIN_PARAMS = new Set(['name', 'arguments']);

/**
 * The hot path of MCP over HTTP (issue 10: a tools/call costs little more than a REST GET). A
 * plain `tools/call` answered as JSON needs none of what the SDK builds per request (a server, a
 * transport, zod parsing of the message and the result), so it runs the same handler directly.
 * Anything else (another method, progress or task parameters, a header the transport would
 * refuse, a session that asked for log messages, which are answered over SSE) answers undefined and
 * takes the SDK path, which owns those rules and their errors. What it copies mirrors the SDK's
 * framing, so package.json pins the SDK to one minor version and test/mcp/sdk-path.test.ts holds
 * both paths to the same bytes (Services.mcpFastPath turns this one off).
 */
export async function fastToolCall(
  request: Request,
  body: unknown,
  session: Pick<McpSession, 'id' | 'options'>,
  call: ReturnType<typeof toolCallHandler>,
): Promise<Response | undefined> {
  if (session.options.logLevel) return undefined;
  if (!isRecord(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  if (!isRecord(params) || typeof params.name !== 'string' || (params.arguments !== undefined && !isRecord(params.arguments))) return undefined;
  for (const k in params) if (!PLAIN_PARAMS.has(k)) return undefined;
  const accept = request.headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (request.headers.get('content-type')?.split(';')[0].trim().toLowerCase() !== 'application/json') return undefined;
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;

  let answer: string;
  try {
    const result = await call(params as { name: string; arguments?: Record<string, unknown> });
    // Keys in the SDK's order (its Protocol answers {result, jsonrpc, id}): both paths send the same bytes.
    answer = `{"result":${resultJson(result)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  } catch (err: any) {
    // As the SDK answers a handler's throw: its code when it has one, else an internal error.
    const error = { code: Number.isSafeInteger(err?.code) ? err.code : ErrorCode.InternalError, message: err?.message ?? 'Internal error' };
    answer = JSON.stringify({ jsonrpc: '2.0', id, error: err?.data === undefined ? error : { ...error, data: err.data } });
  }
  return conventionResponse(answer, { status: 200, headers: { 'Content-Type': 'application/json', 'Mcp-Session-Id': session.id } });
}

/** A result whose text mirror is its structuredContent's JSON (core/mcp/server.ts textResult) reuses that text. */
function resultJson(result: CallToolResult): string {
  const only = result.content.length === 1 ? result.content[0] : undefined;
  let keys = 0;
  for (const _ in result) keys++;
  const mirrored = only?.type === 'text' && result.structuredContent && keys === 2 && jsonText(result.structuredContent) === only.text;
  return mirrored ? `{"content":${JSON.stringify(result.content)},"structuredContent":${only.text}}` : JSON.stringify(result);
}
