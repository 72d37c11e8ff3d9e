import { errors } from '../errors';
import { MAX_JSON_DEPTH, tooDeepError, tooDeepInText } from '../json-depth';
import { BODY_LIMITS, readRestBody } from './limits';

const decoder = new TextDecoder();

/**
 * Reads a JSON object body; an empty body is `{}`. Over the size limit is a 413 (told by
 * Content-Length before anything is read, else counted in bytes as they arrive); anything else
 * wrong is a 400.
 */
export async function readJsonBody(request: Request): Promise<{ raw: string; value: Record<string, any> }> {
  const raw = decoder.decode(await readRestBody(request, BODY_LIMITS.json));
  if (raw.trim() === '') return { raw, value: {} };
  // Before parsing: the body object is level 1, so its fields may nest MAX_JSON_DEPTH levels.
  const deep = tooDeepInText(raw, MAX_JSON_DEPTH + 1);
  if (deep) throw tooDeepError(deep);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw errors.validation('Malformed JSON in request body.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw errors.validation('The request body must be a JSON object.');
  return { raw, value: value as Record<string, any> };
}

/** An URL-encoded form (HTML forms, OAuth token requests) as a plain object; JSON is taken too. */
async function readFormBody(request: Request): Promise<{ raw: string; value: Record<string, any> }> {
  if ((request.headers.get('content-type') ?? '').includes('application/json')) return readJsonBody(request);
  const raw = decoder.decode(await readRestBody(request, BODY_LIMITS.form));
  return { raw, value: Object.fromEntries(new URLSearchParams(raw)) };
}

/** The request body as the route declared it: a JSON object, a form, raw bytes or multipart parts. */
export async function readBody(request: Request, kind: 'json' | 'form' | 'raw' | 'multipart'): Promise<{ raw: string; value: Record<string, any> }> {
  if (kind === 'json') return readJsonBody(request);
  if (kind === 'form') return readFormBody(request);
  const type = request.headers.get('content-type') ?? '';
  if (kind === 'multipart') {
    // A multipart route takes JSON too (media's upload: a file part, or base64 `data` / `source_url`).
    if (type.includes('application/json')) return readJsonBody(request);
    if (!type.startsWith('multipart/form-data')) throw errors.validation('Expected a multipart/form-data body.');
    // Counted first, then parsed from the bytes kept: the parser never sees more than the limit.
    const bytes = await readRestBody(request, BODY_LIMITS.multipart);
    try {
      return { raw: '', value: { form: await new Response(bytes, { headers: { 'content-type': type } }).formData() } };
    } catch {
      throw errors.validation('Malformed multipart/form-data body.');
    }
  }
  return { raw: '', value: { body: await readRestBody(request, BODY_LIMITS.raw), content_type: type } };
}
