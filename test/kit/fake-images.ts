/**
 * A local fake of the image services (OpenAI /images/*, Stability's upscale, remove.bg) on
 * 127.0.0.1: one scripted reply per request, each request kept with its multipart fields (files
 * as bytes) or its JSON body.
 */
export type ImageReply = { status: number; body: string | Uint8Array; headers?: Record<string, string> } | { delayMs: number; then: ImageReply };

export interface SeenRequest {
  path: string;
  headers: Record<string, string>;
  json?: any;
  fields?: Record<string, string>;
  files?: Record<string, { name: string; bytes: Uint8Array }>;
}

export function fakeImages(replies: ImageReply[]) {
  const requests: SeenRequest[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const seen: SeenRequest = { path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers) };
      if ((req.headers.get('content-type') ?? '').startsWith('multipart/form-data')) {
        seen.fields = {};
        seen.files = {};
        for (const [k, v] of (await req.formData()).entries()) {
          const part = v as unknown as string | File;
          if (typeof part === 'string') seen.fields[k] = part;
          else seen.files[k] = { name: part.name, bytes: new Uint8Array(await part.arrayBuffer()) };
        }
      } else {
        const text = await req.text();
        seen.json = text ? JSON.parse(text) : undefined;
      }
      requests.push(seen);
      let r = replies.shift();
      if (!r) return new Response('no scripted reply left', { status: 500 });
      while ('delayMs' in r) {
        await Bun.sleep(r.delayMs);
        r = r.then;
      }
      return new Response(typeof r.body === 'string' ? r.body : new Uint8Array(r.body), { status: r.status, headers: r.headers });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** OpenAI's images answer: `{created, data: [{b64_json}]}`. */
export const b64Images = (...images: Uint8Array[]): ImageReply => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ created: 1, data: images.map((b) => ({ b64_json: Buffer.from(b).toString('base64') })) }),
});

/** A picture as Stability and remove.bg answer one (the bytes, with their type). */
export const imageBody = (bytes: Uint8Array, type = 'image/png'): ImageReply => ({ status: 200, body: bytes, headers: { 'content-type': type } });

/** A JSON error answer, with Retry-After when given. */
export const failure = (status: number, message: string, retryAfter?: number): ImageReply => ({
  status,
  headers: { 'content-type': 'application/json', ...(retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}) },
  body: JSON.stringify({ errors: [message] }),
});
