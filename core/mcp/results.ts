import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { jsonText } from '../json-text';
import type { SvcError } from '../errors';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A tool's answer as an MCP result. structuredContent must be a JSON object, but a custom tool may
 * return any JSON value (42, "text", [..], null, true): those are wrapped as {"result": <value>}.
 * The text mirror, for clients that ignore structuredContent, is the same JSON; compact, since it
 * is sent twice.
 */
export const textResult = (value: unknown, isError = false): CallToolResult => {
  if (isError) return { content: [{ type: 'text', text: JSON.stringify(value) }], isError: true };
  const structured = isRecord(value) ? value : { result: value ?? null };
  const image = imageOf(structured);
  if (image) {
    // An image an action returns (`image: {object: 'image', mime_type, data}`, e.g. a QR code) goes
    // to the client once, as MCP image content a model can see, not as base64 inside the JSON.
    const { image: _, ...rest } = structured;
    return {
      content: [
        { type: 'text', text: jsonText(rest) },
        { type: 'image', data: image.data, mimeType: image.mime_type },
      ],
      structuredContent: rest,
    };
  }
  return { content: [{ type: 'text', text: jsonText(structured) }], structuredContent: structured };
};

const imageOf = (v: Record<string, unknown>) => {
  const i = v.image as Record<string, unknown> | undefined;
  return isRecord(i) && i.object === 'image' && typeof i.data === 'string' && typeof i.mime_type === 'string'
    ? (i as { data: string; mime_type: string })
    : undefined;
};

/** A tool error as the MCP result a model reads (isError), the same on every path. */
export const errorResult = (e: Pick<SvcError, 'type' | 'code' | 'message' | 'param'>): CallToolResult =>
  textResult({ error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);

/**
 * A JSON-RPC error the SDK sends as it is. Not McpError: its message already reads "MCP error
 * -32602: ...", which the SDK would send, and the client's McpError would prefix once more.
 */
export const protocolError = (code: number, message: string, data?: unknown) => Object.assign(new Error(message), { code, data });
