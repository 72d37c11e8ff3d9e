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
  const media = mediaOf(structured);
  if (media.length) {
    // Media an action returns (`image`, `audio`, `embedded_resource` objects, e.g. a QR code) go to
    // the client once, as MCP content a model can see, not as base64 inside the JSON.
    const rest = Object.fromEntries(Object.entries(structured).filter(([k]) => !(k in MEDIA)));
    return { content: [{ type: 'text', text: jsonText(rest) }, ...media], structuredContent: rest };
  }
  return { content: [{ type: 'text', text: jsonText(structured) }], structuredContent: structured };
};

type Content = CallToolResult['content'][number];
const str = (v: unknown): v is string => typeof v === 'string';

/**
 * The top-level output fields that become MCP content (plugins/README.md, "Media in tool results"),
 * each recognised by its `object`: `image` and `audio` `{object, mime_type, data}` (base64), and
 * `embedded_resource` `{object, uri, mime_type, text | blob}`.
 */
const MEDIA: Record<string, (v: Record<string, unknown>) => Content | undefined> = {
  image: (i) => (i.object === 'image' && str(i.data) && str(i.mime_type) ? { type: 'image', data: i.data, mimeType: i.mime_type } : undefined),
  audio: (a) => (a.object === 'audio' && str(a.data) && str(a.mime_type) ? { type: 'audio', data: a.data, mimeType: a.mime_type } : undefined),
  embedded_resource: (r) =>
    r.object === 'embedded_resource' && str(r.uri) && str(r.mime_type) && (str(r.text) || str(r.blob))
      ? {
          type: 'resource',
          resource: str(r.text) ? { uri: r.uri, mimeType: r.mime_type, text: r.text } : { uri: r.uri, mimeType: r.mime_type, blob: r.blob as string },
        }
      : undefined,
};

/** MEDIA's entries, made once: mediaOf runs on every tool result. */
const MEDIA_ENTRIES = Object.entries(MEDIA);
const NO_MEDIA: Content[] = [];

const mediaOf = (v: Record<string, unknown>): Content[] => {
  let out = NO_MEDIA;
  for (const [key, make] of MEDIA_ENTRIES) {
    const field = v[key];
    const content = isRecord(field) ? make(field) : undefined;
    if (content) (out === NO_MEDIA ? (out = []) : out).push(content);
  }
  return out;
};

/** A tool error as the MCP result a model reads (isError), the same on every path. */
export const errorResult = (e: Pick<SvcError, 'type' | 'code' | 'message' | 'param'>): CallToolResult =>
  textResult({ error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);

/**
 * A JSON-RPC error the SDK sends as it is. Not McpError: its message already reads "MCP error
 * -32602: ...", which the SDK would send, and the client's McpError would prefix once more.
 */
export const protocolError = (code: number, message: string, data?: unknown) => Object.assign(new Error(message), { code, data });
