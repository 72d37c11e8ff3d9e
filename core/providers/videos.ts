import { httpFailure, malformed, ProviderTimeout, providerFetch, timedOut, unreachable, type WireState } from './wire';

/** The video service's settings: its base URL (the operator's, trusted), key and one attempt's limit. */
export interface VideoSettings {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

export const VIDEO_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type VideoStatus = (typeof VIDEO_STATUSES)[number];

/** A video job as the provider reports it (OpenAI's `video` object, the fields svc reads). */
export interface ProviderVideo {
  id: string;
  status: VideoStatus;
  /** 0 to 100. */
  progress: number;
  seconds: number;
  size: string;
  model: string;
  error: { code: string; message: string } | null;
}

/**
 * Video generation (the `videos` kind): a job made at the provider, polled until it is completed
 * or failed, then its file downloaded. Each call is one HTTP request under the shared policy.
 */
export interface VideosProvider {
  name: string;
  create(req: { model: string; prompt: string; seconds?: number; size?: string }, signal?: AbortSignal): Promise<ProviderVideo>;
  get(id: string, signal?: AbortSignal): Promise<ProviderVideo>;
  /** The finished file's bytes (MP4). */
  content(id: string, signal?: AbortSignal): Promise<Uint8Array>;
}

const url = (base: string, path: string) => new URL(path, base.replace(/\/*$/, '/'));
const auth = (key?: string): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

async function send(s: VideoSettings, target: URL, init: RequestInit, signal?: AbortSignal): Promise<Response> {
  const state: WireState = { timedOut: false };
  let res: Response;
  try {
    res = await providerFetch({ provider: 'openai', timeoutMs: s.timeoutMs }, state)(target, { ...init, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (state.timedOut || err instanceof ProviderTimeout) throw timedOut('openai', s.timeoutMs);
    throw unreachable('openai', (err as Error).message);
  }
  if (!res.ok) throw httpFailure('openai', res.status, (await res.text()).slice(0, 300) || res.statusText, res.headers);
  return res;
}

/** OpenAI's `video` object, checked: anything the protocol does not allow is `malformed`, never a guess. */
async function decodeVideo(res: Response): Promise<ProviderVideo> {
  let v: any;
  try {
    v = await res.json();
  } catch {
    throw malformed('openai', 'the answer is not JSON');
  }
  if (!v || typeof v.id !== 'string' || !v.id || !VIDEO_STATUSES.includes(v.status)) throw malformed('openai', 'expected a video {id, status}');
  const seconds = Number(v.seconds ?? 0);
  const progress = Number(v.progress ?? 0);
  if (!Number.isFinite(seconds) || !Number.isFinite(progress)) throw malformed('openai', 'seconds and progress must be numbers');
  const error =
    v.error && typeof v.error === 'object'
      ? { code: String(v.error.code ?? 'failed'), message: String(v.error.message ?? 'The video failed.') }
      : null;
  return {
    id: v.id,
    status: v.status,
    progress: Math.max(0, Math.min(100, progress)),
    seconds,
    size: typeof v.size === 'string' ? v.size : '',
    model: typeof v.model === 'string' ? v.model : '',
    error,
  };
}

/**
 * OpenAI's Videos API (Sora): `POST /videos` (multipart, as OpenAI's SDK sends it), `GET
 * /videos/{id}`, `GET /videos/{id}/content` (the MP4).
 */
export function openaiVideos(s: VideoSettings): VideosProvider {
  return {
    name: 'openai',
    async create(req, signal) {
      const form = new FormData();
      form.set('model', req.model);
      form.set('prompt', req.prompt);
      // The API takes seconds as a string ('4', '8', '12').
      if (req.seconds !== undefined) form.set('seconds', String(req.seconds));
      if (req.size) form.set('size', req.size);
      return decodeVideo(await send(s, url(s.baseUrl, 'videos'), { method: 'POST', headers: auth(s.apiKey), body: form }, signal));
    },
    async get(id, signal) {
      return decodeVideo(await send(s, url(s.baseUrl, `videos/${encodeURIComponent(id)}`), { method: 'GET', headers: auth(s.apiKey) }, signal));
    },
    async content(id, signal) {
      const res = await send(s, url(s.baseUrl, `videos/${encodeURIComponent(id)}/content`), { method: 'GET', headers: auth(s.apiKey) }, signal);
      const type = res.headers.get('content-type') ?? '';
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (!bytes.length || type.startsWith('application/json') || type.startsWith('text/'))
        throw malformed('openai', `expected the video file, got ${type || 'no type'}`);
      return bytes;
    },
  };
}
