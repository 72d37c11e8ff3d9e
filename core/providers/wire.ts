import { fail, SvcError } from '../errors';
import { tracing, type TracedOutcome } from '../plugins/telemetry';

/**
 * The one retry and timeout policy of every provider call (the SDK clients are given this fetch
 * with their own retries off, so openai, anthropic, search and embeddings behave alike):
 * a 429 or 5xx is tried again up to MAX_RETRIES times, waiting what `Retry-After` asks (else a
 * short backoff), as long as the whole call stays within RETRY_BUDGET_MS; then the last answer is
 * handed back and mapped by `httpFailure`. Each attempt has its own timeout.
 */
export const MAX_RETRIES = 3;
export const RETRY_BUDGET_MS = 30_000;
/** When a provider asks for no wait: 0.5 s, 1 s, 2 s. */
const backoffMs = (attempt: number) => 500 * 2 ** attempt;
/** What a client is told to wait when the provider's final 429 named no Retry-After. */
const DEFAULT_RETRY_AFTER_S = 30;

const retryable = (status: number) => status === 429 || status >= 500;

/** The wait a response asks for (Retry-After in seconds or as a date, or retry-after-ms), if any. */
export function askedWaitMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return ms;
  const text = headers.get('retry-after');
  if (!text) return undefined;
  const seconds = Number.parseFloat(text);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Resolves after `ms`, or rejects at once when `signal` aborts (the caller left, shutdown). */
const pause = (ms: number, signal: AbortSignal | null | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export interface WireOptions {
  /** The provider's name in errors (`openai`, `brave`). */
  provider: string;
  /** One attempt's limit: until the headers for a stream, until the whole body otherwise. */
  timeoutMs: number;
  /** A streamed answer: the timeout stops at the headers, the body is handed on as it comes. */
  stream?: boolean;
  /** A keyless OpenAI-compatible server (Ollama, vLLM) is sent no Authorization at all, though the SDK insists on a key. */
  dropAuthorization?: boolean;
}

/** What the last attempt of a call saw, for the error mapping (the SDKs wrap what fetch throws). */
export interface WireState {
  timedOut: boolean;
}

/** Thrown by the fetch when an attempt runs out of time; the message says "timed out" so SDKs see a timeout. */
export class ProviderTimeout extends Error {}

/**
 * A fetch with the policy above. Bodies are strings or bytes (the SDKs send JSON text), so an
 * attempt can be sent again. A non-streamed answer is read whole within the timeout and handed
 * on as bytes, so a provider that stalls mid-body times out like one that never answers.
 */
export function providerFetch(opts: WireOptions, state: WireState = { timedOut: false }): typeof fetch {
  const call = withRetries(opts, state);
  // A span per provider call (its retries inside) when a tracer is installed (core/plugins/telemetry.ts).
  return ((input: string | URL | Request, init?: RequestInit) => {
    const tracer = tracing.tracer;
    if (!tracer) return call(input, init);
    return tracer.span('provider', opts.provider, { route: opts.provider }, () => call(input, init), providerOutcome);
  }) as typeof fetch;
}

/** A provider's answer as a span's outcome: any error status is a provider failure (an error of query_errors). */
const providerOutcome = (res: Response): TracedOutcome =>
  res.status >= 400
    ? { status: res.status, failed: true, error: true, code: 'provider_error', message: `HTTP ${res.status} ${res.statusText}`.trim() }
    : { status: res.status };

function withRetries(opts: WireOptions, state: WireState) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const started = performance.now();
    const sent = new Headers(init?.headers);
    if (opts.dropAuthorization) sent.delete('authorization');
    for (let attempt = 0; ; attempt++) {
      const res = await attemptFetch(input, { ...init, headers: sent }, opts, state);
      if (!retryable(res.status) || attempt >= MAX_RETRIES) return res;
      const wait = askedWaitMs(res.headers) ?? backoffMs(attempt);
      if (performance.now() - started + wait > RETRY_BUDGET_MS) return res;
      await res.body?.cancel().catch(() => {});
      await pause(wait, init?.signal);
    }
  };
}

async function attemptFetch(input: string | URL | Request, init: RequestInit, opts: WireOptions, state: WireState): Promise<Response> {
  const timer = new AbortController();
  const timeout = setTimeout(() => {
    state.timedOut = true;
    timer.abort(new ProviderTimeout(`${opts.provider} timed out after ${opts.timeoutMs} ms`));
  }, opts.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
  try {
    const res = await fetch(input, { ...init, signal });
    if (opts.stream) return res;
    const bytes = await res.arrayBuffer();
    return new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
  } catch (err) {
    if (timer.signal.aborted && !init.signal?.aborted) throw timer.signal.reason;
    throw err;
  } finally {
    clearTimeout(timeout);
  }
}

/** 429 rate_limit_exceeded with the provider's Retry-After, else 502 provider_error: a provider's final error answer. */
export function httpFailure(provider: string, status: number, detail: string, headers?: Headers): SvcError {
  if (status === 429) {
    const wait = headers ? askedWaitMs(headers) : undefined;
    const seconds = wait === undefined ? DEFAULT_RETRY_AFTER_S : Math.max(1, Math.ceil(wait / 1000));
    return fail('rate_limit_exceeded', `${provider} is rate limiting this server (HTTP 429: ${detail}); retry after ${seconds} s.`, null, {
      'Retry-After': String(seconds),
    });
  }
  return fail('provider_error', `${provider} answered HTTP ${status}: ${detail}`);
}

/** 502 provider_error for an answer that is not what the protocol promises. */
export const malformed = (provider: string, what: string) => fail('provider_error', `${provider} answered malformed data: ${what}`);

export const timedOut = (provider: string, ms: number) => fail('provider_error', `${provider} did not answer within ${ms / 1000} s (timed out).`);

export const unreachable = (provider: string, why: string) => fail('provider_error', `${provider} could not be reached: ${why}`);

/** The error classes both SDKs export under the same names. */
interface SdkErrors {
  APIError: new (...args: any[]) => Error & { status?: number; headers?: Headers };
  APIConnectionError: new (...args: any[]) => Error;
  APIUserAbortError: new (...args: any[]) => Error;
}

/**
 * An SDK's error as ours: a final HTTP error (429 or 502 as above), a timeout, an unreachable
 * provider, or an answer the SDK could not parse (malformed). An abort by the caller passes
 * through unchanged (the caller knows it stopped).
 */
export function sdkFailure(provider: string, sdk: SdkErrors, err: unknown, state: WireState, timeoutMs: number): unknown {
  if (err instanceof SvcError) return err;
  if (err instanceof sdk.APIUserAbortError) return err;
  if (state.timedOut) return timedOut(provider, timeoutMs);
  if (err instanceof sdk.APIConnectionError) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return unreachable(provider, cause ?? err.message);
  }
  if (err instanceof sdk.APIError) {
    // The provider's own words when its error body has them ({error: {message}} in both formats).
    const body = (err as { error?: { message?: unknown; error?: { message?: unknown } } }).error;
    const said = body?.error?.message ?? body?.message;
    const detail = typeof said === 'string' ? said : err.message.replace(/^\d{3} /, '');
    // Without a status: an error event inside the stream.
    return err.status ? httpFailure(provider, err.status, detail, err.headers) : fail('provider_error', `${provider} error: ${detail}`);
  }
  if ((err as Error)?.name === 'AbortError') return err;
  // A body the SDK could not parse as the JSON it promised.
  if (err instanceof SyntaxError) return malformed(provider, err.message);
  // The connection dropped while the answer was read (a stream cut mid-way).
  return fail('provider_error', `${provider} failed while answering: ${(err as Error)?.message ?? String(err)}`);
}
