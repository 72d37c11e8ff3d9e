import { httpFailure, malformed, ProviderTimeout, providerFetch, timedOut, unreachable, type WireState } from './wire';

/** One image service's settings: its base URL (the operator's, trusted), key and one attempt's limit. */
export interface ImageSettings {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

/** The picture bytes a call made, and how many images it billed. */
export interface ImagesAnswer {
  images: Uint8Array[];
}

export interface ImagesProvider {
  name: string;
  generate(req: { model: string; prompt: string; size?: string; n?: number }, signal?: AbortSignal): Promise<ImagesAnswer>;
  edit(req: { model: string; prompt: string; image: Uint8Array; filename: string; size?: string }, signal?: AbortSignal): Promise<ImagesAnswer>;
}

export interface ImageOpProvider {
  name: string;
  /** One picture in, one picture out (an upscale, a background removed). */
  run(image: Uint8Array, filename: string, signal?: AbortSignal): Promise<Uint8Array>;
}

const url = (base: string, path: string) => new URL(path, base.replace(/\/*$/, '/'));

/** A POST through the shared retry and error policy; the final failure as our error. */
async function post(provider: string, s: ImageSettings, target: URL, init: RequestInit, signal?: AbortSignal): Promise<Response> {
  const state: WireState = { timedOut: false };
  let res: Response;
  try {
    res = await providerFetch({ provider, timeoutMs: s.timeoutMs }, state)(target, { method: 'POST', ...init, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (state.timedOut || err instanceof ProviderTimeout) throw timedOut(provider, s.timeoutMs);
    throw unreachable(provider, (err as Error).message);
  }
  if (!res.ok) throw httpFailure(provider, res.status, (await res.text()).slice(0, 300) || res.statusText, res.headers);
  return res;
}

/** OpenAI's `{data: [{b64_json}]}` (gpt-image-1 always answers base64; others when asked). */
async function decodeImages(provider: string, res: Response): Promise<ImagesAnswer> {
  let body: any;
  try {
    body = await res.json();
  } catch {
    throw malformed(provider, 'the answer is not JSON');
  }
  const list = body?.data;
  if (!Array.isArray(list) || !list.length || !list.every((d) => d && typeof d.b64_json === 'string'))
    throw malformed(provider, 'expected data: [{b64_json}]');
  return { images: list.map((d: { b64_json: string }) => new Uint8Array(Buffer.from(d.b64_json, 'base64'))) };
}

const auth = (key?: string): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
// Only DALL-E takes response_format; gpt-image-1 refuses the field and answers base64 anyway.
const askBase64 = (model: string) => (/^dall-e/i.test(model) ? { response_format: 'b64_json' } : {});

/** OpenAI-compatible `POST /images/generations` and `POST /images/edits` (multipart). */
export function openaiImages(s: ImageSettings): ImagesProvider {
  return {
    name: 'openai',
    async generate(req, signal) {
      const body = JSON.stringify({
        model: req.model,
        prompt: req.prompt,
        n: req.n ?? 1,
        ...(req.size ? { size: req.size } : {}),
        ...askBase64(req.model),
      });
      const res = await post(
        'openai',
        s,
        url(s.baseUrl, 'images/generations'),
        { headers: { 'content-type': 'application/json', ...auth(s.apiKey) }, body },
        signal,
      );
      return decodeImages('openai', res);
    },
    async edit(req, signal) {
      const form = new FormData();
      form.set('model', req.model);
      form.set('prompt', req.prompt);
      form.set('image', new Blob([new Uint8Array(req.image)], { type: 'image/png' }), req.filename);
      if (req.size) form.set('size', req.size);
      if (askBase64(req.model).response_format) form.set('response_format', 'b64_json');
      const res = await post('openai', s, url(s.baseUrl, 'images/edits'), { headers: auth(s.apiKey), body: form }, signal);
      return decodeImages('openai', res);
    },
  };
}

async function imageBytes(provider: string, res: Response): Promise<Uint8Array> {
  const type = res.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!type.startsWith('image/') || !bytes.length) throw malformed(provider, `expected an image, got ${type || 'no type'}`);
  return bytes;
}

/** Stability AI's `POST /v2beta/stable-image/upscale/fast` (multipart `image`, `Accept: image/*`): 4x. */
export function stabilityUpscale(s: ImageSettings): ImageOpProvider {
  return {
    name: 'stability',
    async run(image, filename, signal) {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(image)]), filename);
      form.set('output_format', 'png');
      const res = await post(
        'stability',
        s,
        url(s.baseUrl, 'v2beta/stable-image/upscale/fast'),
        { headers: { ...auth(s.apiKey), accept: 'image/*' }, body: form },
        signal,
      );
      return imageBytes('stability', res);
    },
  };
}

/** remove.bg's `POST /v1.0/removebg` (multipart `image_file`, `X-Api-Key`): a PNG with the background transparent. */
export function removeBg(s: ImageSettings): ImageOpProvider {
  return {
    name: 'removebg',
    async run(image, filename, signal) {
      const form = new FormData();
      form.set('image_file', new Blob([new Uint8Array(image)]), filename);
      form.set('size', 'auto');
      form.set('format', 'png');
      const res = await post(
        'removebg',
        s,
        url(s.baseUrl, 'v1.0/removebg'),
        { headers: { 'x-api-key': s.apiKey ?? '', accept: 'image/png' }, body: form },
        signal,
      );
      return imageBytes('removebg', res);
    },
  };
}
