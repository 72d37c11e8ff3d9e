import { ProviderError } from './types';

/** Retries of one model call after a 408, 409, 429, 529 or 5xx (the SDKs' rule), with their backoff. */
export const MAX_RETRIES = 2;

/**
 * The longest `Retry-After` a provider may ask for and be waited on. Longer, and the turn fails
 * now with the provider's answer rather than hold the chat (and a shutdown) that long.
 */
export const MAX_RETRY_AFTER_MS = 10_000;

const retryable = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** The wait a response asks for (Retry-After in seconds or as a date, or retry-after-ms), if any. */
function askedWaitMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return ms;
  const text = headers.get('retry-after');
  if (!text) return undefined;
  const seconds = Number.parseFloat(text);
  return Number.isFinite(seconds) ? seconds * 1000 : Date.parse(text) - Date.now();
}

/** Resolves after `ms`, or rejects at once when `signal` aborts (the chat stopped). */
const pause = (ms: number, signal: AbortSignal | null | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * The fetch the SDK clients use. It bounds their retries and makes their waits stoppable:
 * - a retryable answer asking for a wait beyond MAX_RETRY_AFTER_MS gets the SDKs' own
 *   `x-should-retry: false`, so the call fails at once;
 * - a wait it may take is taken here, not in the SDK (whose sleep ignores the request's abort
 *   signal), so a chat the client left or the server is shutting down stops at once; the SDK is
 *   then told to retry after 1 ms. Not before the last attempt, which the SDK will not retry.
 * `dropAuthorization`: a keyless OpenAI-compatible server (Ollama, vLLM) is sent no Authorization
 * at all, though the SDK insists on a key.
 */
export function providerFetch(opts: { dropAuthorization?: boolean } = {}): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const sent = new Headers(init?.headers);
    if (opts.dropAuthorization) sent.delete('authorization');
    const res = await fetch(input, { ...init, headers: sent });
    const wait = retryable(res.status) && res.headers.get('x-should-retry') !== 'false' ? askedWaitMs(res.headers) : undefined;
    if (wait === undefined) return res;
    const headers = new Headers(res.headers);
    if (wait > MAX_RETRY_AFTER_MS) headers.set('x-should-retry', 'false');
    else if (Number(sent.get('x-stainless-retry-count') ?? 0) < MAX_RETRIES) {
      await pause(wait, init?.signal).catch(async (err) => {
        await res.body?.cancel();
        throw err;
      });
      headers.delete('retry-after');
      headers.set('retry-after-ms', '1');
    }
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }) as typeof fetch;
}

/** The error classes both SDKs export under the same names. */
interface SdkErrors {
  APIError: new (...args: any[]) => Error & { status?: number };
  APIConnectionError: new (...args: any[]) => Error;
  APIUserAbortError: new (...args: any[]) => Error;
}

/**
 * An SDK error as the ProviderError the chat reports: the HTTP status and the provider's message,
 * or why it could not be reached. An abort passes through unchanged (the chat knows it stopped).
 */
export function providerError(vendor: string, sdk: SdkErrors, err: unknown): unknown {
  if (err instanceof sdk.APIUserAbortError) return err;
  if (err instanceof sdk.APIConnectionError) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return new ProviderError(`${vendor} could not be reached: ${cause ?? err.message}`);
  }
  if (err instanceof sdk.APIError) {
    // The provider's own words when its error body has them ({error: {message}} in both formats);
    // else the SDK's message, which starts with the status.
    const body = (err as { error?: { message?: unknown; error?: { message?: unknown } } }).error;
    const said = body?.error?.message ?? body?.message;
    const detail = typeof said === 'string' ? said : err.message.replace(/^\d{3} /, '');
    // With a status: the HTTP answer; without: an error event in the stream.
    return new ProviderError(err.status ? `${vendor} answered HTTP ${err.status}: ${detail}` : `${vendor} error: ${detail}`);
  }
  return err;
}
