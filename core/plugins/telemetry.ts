/**
 * Where the core's hot paths (HTTP requests, tool calls, jobs, queries, webhook deliveries,
 * provider calls) report to tracing. Nothing is traced until a plugin installs a tracer (the
 * telemetry plugin, in `svc serve`): until then each hook is one property read and a branch, so
 * the REST and MCP paths cost what they did before.
 *
 * The core knows nothing of OpenTelemetry: it names what runs and how it ended; the tracer makes
 * spans, metrics and error records of it.
 */

/** What a span is about: the kinds of work svc traces. */
export type TracedKind = 'request' | 'tool_call' | 'job' | 'query' | 'webhook' | 'provider';

/** Facts about a span known when it starts (all optional; the store's id decides who may read it). */
export interface TracedAttrs {
  store_id?: string;
  /** A request's route (`GET /v1/stores/:storeId/products/:id`), a tool (`products.get_product`), a queue. */
  route?: string;
  method?: string;
  [key: string]: string | number | boolean | undefined;
}

/** How a finished piece of work ended, when the answer is a value rather than a throw. */
export interface TracedOutcome {
  /** An HTTP status (a request's answer, a provider's or a webhook endpoint's). */
  status?: number;
  /** It failed: a tool error, a job failed, a delivery refused. */
  failed?: boolean;
  /** The failure's code and message, when known. */
  code?: string;
  message?: string;
  /** A failure that counts as an error (query_errors), not only as a metric. */
  error?: boolean;
  /** The request's id (X-Request-Id), for finding its trace; read only when the span has none yet (it may be a getter). */
  request_id?: string;
}

export interface Tracer {
  /** Runs `run` inside a span; `outcome` reads how it ended from its value (a Response, a tool outcome). */
  span<T>(kind: TracedKind, name: string, attrs: TracedAttrs, run: () => T | Promise<T>, outcome?: (value: T) => TracedOutcome): Promise<T>;
  /** A piece of work already finished (a webhook attempt), recorded as a span of its own. */
  record(kind: TracedKind, name: string, attrs: TracedAttrs, durationMs: number, outcome: TracedOutcome): void;
  /**
   * Facts learnt while the active span runs: a request's store once its credential is checked
   * (`store_id`), its `request_id`, the `error_code` and `error_message` of a 5xx it answers.
   */
  annotate(attrs: Record<string, string | number | boolean | undefined>): void;
  /**
   * A query is about to run: the span it runs inside (handed back to `queryEnd`), or undefined when
   * it runs untraced (no active span, or one that has ended). The database wrappers time the
   * driver's own promise between the two calls: no closure and no promise of the tracer's per query.
   */
  queryStart(): object | undefined;
  /** The query begun at `t0` (performance.now()) inside `parent` ended; `failure` is what it threw, if it did. */
  queryEnd(parent: object, text: string, t0: number, failure?: unknown): void;
}

/** The installed tracer, if any. Read on every hook: a plain property, no function call. */
export const tracing: { tracer?: Tracer } = {};

/** Installs the process's tracer (undefined removes it). */
export function installTracer(tracer: Tracer | undefined): void {
  tracing.tracer = tracer;
}
