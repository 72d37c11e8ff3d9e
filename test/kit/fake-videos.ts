/**
 * A local fake of OpenAI's Videos API on 127.0.0.1, keeping state as the real one does:
 * `POST /v1/videos` (multipart: model, prompt, seconds, size) makes a `video` object (queued);
 * each `GET /v1/videos/{id}` answers the next of `steps` (the last one repeats); `GET
 * /v1/videos/{id}/content` answers the MP4. `interrupt(reply)` queues answers given instead of the
 * next requests (a 429 with Retry-After, a 5xx, malformed JSON), whatever their path.
 */
export type VideoReply = { status: number; body: string | Uint8Array; headers?: Record<string, string> };

export interface VideoStep {
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  progress?: number;
  error?: { code: string; message: string };
}

export interface SeenVideoRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  fields?: Record<string, string>;
}

/** The first bytes of an MP4 (an `ftyp` box), which media sniffs as video/mp4. */
export const MP4 = new Uint8Array([
  0,
  0,
  0,
  0x18,
  ...new TextEncoder().encode('ftypmp42'),
  0,
  0,
  0,
  0,
  ...new TextEncoder().encode('mp42isom'),
  ...new Uint8Array(64).fill(7),
]);

const json = (status: number, body: unknown, headers: Record<string, string> = {}): VideoReply => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** OpenAI's error answer, with Retry-After when given. */
export const videoFailure = (status: number, message: string, retryAfter?: number): VideoReply =>
  json(status, { error: { message, type: 'invalid_request_error' } }, retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {});

export function fakeVideos(opts: { steps?: VideoStep[]; content?: Uint8Array; seconds?: string } = {}) {
  const steps = opts.steps ?? [
    { status: 'in_progress', progress: 40 },
    { status: 'completed', progress: 100 },
  ];
  const requests: SeenVideoRequest[] = [];
  const interrupts: VideoReply[] = [];
  const videos = new Map<string, { object: 'video'; polls: number; [k: string]: unknown }>();
  const view = (v: { polls: number; [k: string]: unknown }) => {
    const { polls: _, ...rest } = v;
    return rest;
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const seen: SeenVideoRequest = { method: req.method, path, headers: Object.fromEntries(req.headers) };
      if ((req.headers.get('content-type') ?? '').startsWith('multipart/form-data')) {
        seen.fields = {};
        for (const [k, v] of (await req.formData()).entries()) if (typeof v === 'string') seen.fields[k] = v;
      }
      requests.push(seen);
      const override = interrupts.shift();
      const r = override ?? answer(req.method, path, seen.fields);
      return new Response(typeof r.body === 'string' ? r.body : new Uint8Array(r.body), { status: r.status, headers: r.headers });
    },
  });

  function answer(method: string, path: string, fields?: Record<string, string>): VideoReply {
    if (method === 'POST' && path === '/v1/videos') {
      if (!fields?.prompt) return videoFailure(400, "Missing required parameter: 'prompt'.");
      const id = `video_${crypto.randomUUID().replaceAll('-', '')}`;
      const v = {
        id,
        object: 'video' as const,
        model: fields.model ?? 'sora-2',
        status: 'queued',
        progress: 0,
        prompt: fields.prompt,
        seconds: fields.seconds ?? opts.seconds ?? '4',
        size: fields.size ?? '720x1280',
        quality: 'standard',
        created_at: 1_760_000_000,
        completed_at: null,
        expires_at: null,
        error: null,
        remixed_from_video_id: null,
        polls: 0,
      };
      videos.set(id, v);
      return json(200, view(v));
    }
    const m = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
    const v = m && videos.get(decodeURIComponent(m[1]));
    if (method !== 'GET' || !v) return videoFailure(404, 'Video not found.');
    if (m![2]) {
      if (v.status !== 'completed') return videoFailure(400, 'Video is not ready yet.');
      return { status: 200, headers: { 'content-type': 'video/mp4' }, body: opts.content ?? MP4 };
    }
    const step = steps[Math.min(v.polls++, steps.length - 1)];
    Object.assign(v, {
      status: step.status,
      progress: step.progress ?? (step.status === 'completed' ? 100 : 0),
      error: step.error ?? null,
      completed_at: step.status === 'completed' ? 1_760_000_100 : null,
    });
    return json(200, view(v));
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    /** Answers the next requests with these instead, in order. */
    interrupt: (...replies: VideoReply[]) => void interrupts.push(...replies),
    stop: () => server.stop(true),
  };
}
