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

/** An URL-encoded form (HTML forms, OAuth token requests) as a plain object; JSON is taken too. */
async function readFormBody(request: Request): Promise<{ raw: string; value: Record<string, any> }> {
  if ((request.headers.get('content-type') ?? '').includes('application/json')) return readJsonBody(request);
  const raw = await request.text();
  if (raw.length > MAX_BODY_BYTES) throw errors.validation('Request body exceeds 1 MiB.');
  return { raw, value: Object.fromEntries(new URLSearchParams(raw)) };
}

/** The request body as the route declared it: a JSON object, a form, raw bytes or multipart parts. */
export async function readBody(request: Request, kind: 'json' | 'form' | 'raw' | 'multipart'): Promise<{ raw: string; value: Record<string, any> }> {
  if (kind === 'json') return readJsonBody(request);
  if (kind === 'form') return readFormBody(request);
  const type = request.headers.get('content-type') ?? '';
  if (kind === 'multipart') {
    if (!type.startsWith('multipart/form-data')) throw errors.validation('Expected a multipart/form-data body.');
    return { raw: '', value: { form: await request.formData() } };
  }
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > MAX_BODY_BYTES) throw errors.validation('Request body exceeds 1 MiB.');
  return { raw: '', value: { body: bytes, content_type: type } };
}
