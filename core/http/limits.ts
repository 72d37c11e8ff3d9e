import { requestTooLarge } from './routes-table';

/**
 * Every request-body limit of the HTTP surface, in bytes, in one place (README "Request body
 * limits" lists them). Each is enforced while the body is read: a Content-Length over it is refused
 * before a byte is read, and a chunked body is counted as it arrives and cut off at the limit, so
 * a client sending 100 MiB costs the server at most the limit, never the whole body.
 */
export const BODY_LIMITS = {
  /** REST JSON bodies, HTML forms and OAuth token requests, raw bodies (webhooks in). */
  json: 1024 * 1024,
  form: 1024 * 1024,
  raw: 1024 * 1024,
  /** multipart/form-data uploads. */
  multipart: 10 * 1024 * 1024,
  /** One MCP JSON-RPC message (POST /agent/mcp). */
  mcp: 4 * 1024 * 1024,
} as const;

/**
 * Bun's own cap (`maxRequestBodySize`), lifted: Bun answers a body over it with a bare 413 before
 * any route sees it, so every oversized body, however large, gets its route's answer (the error
 * envelope, or MCP's JSON-RPC error) instead. Nothing is read unbounded: every route reads its body
 * through readLimited (Elysia's parser is off, core/http/app.ts), a declared length over the limit
 * is refused unread and a streamed body is cut off there.
 */
export const SERVER_BODY_CAP = Number.MAX_SAFE_INTEGER;

/** "1 MiB", "4 MiB" (every limit is whole MiB or KiB). */
export const sizeText = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

/** Thrown by readLimited: the body is over `limit`. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The request body exceeds ${sizeText(limit)}.`);
  }
}

/**
 * The request body's bytes, at most `limit` of them: a declared Content-Length over the limit is
 * refused unread, and the stream is cancelled as soon as the count passes it.
 */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await request.body?.cancel().catch(() => {});
    throw new BodyTooLarge(limit);
  }
  // A declared length within the limit is the whole body (HTTP framing ends it there), and Bun
  // reads a buffered body far faster whole than through a stream reader (a third of an MCP call).
  if (declared > 0) {
    const whole = new Uint8Array(await request.arrayBuffer());
    if (whole.byteLength > limit) throw new BodyTooLarge(limit); // a Request built in process may misdeclare
    return whole;
  }
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge(limit);
    }
    chunks.push(value as Uint8Array<ArrayBuffer>);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** readLimited for the REST pipeline: over the limit is the 413 `request_too_large` envelope. */
export async function readRestBody(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return await readLimited(request, limit);
  } catch (e) {
    if (e instanceof BodyTooLarge) throw requestTooLarge(sizeText(limit));
    throw e;
  }
}
