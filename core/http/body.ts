import { errors } from '../errors';
import { MAX_JSON_DEPTH, tooDeepError, tooDeepInText } from '../json-depth';
import { requestTooLarge } from './routes-table';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON object body; an empty body is `{}`. Over the size limit is a 413 (told by
 * Content-Length before anything is read, else counted in bytes); anything else wrong is a 400.
 */
export async function readJsonBody(request: Request): Promise<{ raw: string; value: Record<string, any> }> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw requestTooLarge('1 MiB');
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > MAX_BODY_BYTES) throw requestTooLarge('1 MiB');
  const raw = new TextDecoder().decode(bytes);
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
