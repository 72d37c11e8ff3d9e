import { errors } from '../errors';

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON object body; an empty body is `{}`. Anything else is a 400 envelope. */
export async function readJsonBody(request: Request): Promise<{ raw: string; value: Record<string, any> }> {
  const raw = await request.text();
  if (raw.length > MAX_BODY_BYTES) throw errors.validation('Request body exceeds 1 MiB.');
  if (raw.trim() === '') return { raw, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw errors.validation('Malformed JSON in request body.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw errors.validation('The request body must be a JSON object.');
  return { raw, value: value as Record<string, any> };
}
