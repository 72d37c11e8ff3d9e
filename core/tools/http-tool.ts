/**
 * HTTP custom tools: the tool input goes to the configured URL as JSON, through the egress
 * guard, with the tool's secrets filled into the URL and header values at the last moment.
 *
 * Secrets never come back out: every message and result string is redacted against the
 * tool's secret values, because an endpoint may echo headers, and egress errors name hosts.
 */
import { errors } from '../errors';
import { EgressError, egressFetch, type AllowList, type Resolver } from '../net/egress';
import { redact, redactDeep } from '../secrets';

export interface HttpToolConfig {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  timeout_ms?: number;
}

export type RunOutcome = { status: 'success'; result: unknown } | { status: 'error' | 'timeout'; message: string };

export interface RunOptions {
  /** Replaces SVC_EGRESS_ALLOW (tests, or an operator-chosen list). */
  allow?: readonly string[] | AllowList;
  resolver?: Resolver;
  /** PEM trust anchors replacing the default store. */
  ca?: string;
}

/**
 * Egress settings for runs that pass none: empty in production (SVC_EGRESS_ALLOW, the system's
 * resolver and trust store). Tests point them at a throwaway CA, since tool URLs must be https.
 */
let runDefaults: RunOptions = {};

/** Replaces the defaults for later runs and returns the previous ones (tests restore them). */
export function setToolEgressDefaults(opts: RunOptions): RunOptions {
  const before = runDefaults;
  runDefaults = opts;
  return before;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;
const MAX_BYTES = 1024 * 1024;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const METHODS = new Set([...BODY_METHODS, 'GET', 'DELETE']);

/**
 * A secret reference: `{{NAME}}` (the STORE/tools form) or `{{secrets.NAME}}` (the /custom-tools
 * form). Both forms work in every tool, since either API may edit any tool.
 */
const pattern = () => /\{\{\s*(?:secrets\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The secret names a template references, each once, in order (registration-time validation). */
export function secretRefs(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(pattern()), (m) => m[1]))];
}

/**
 * Fills secret references. One pass: a value that itself looks like `{{X}}` is not expanded.
 * A missing secret is an error naming it (never any value).
 */
export function fillSecrets(template: string, secrets: Record<string, string>): string {
  return template.replace(pattern(), (_, name: string) => {
    if (!Object.hasOwn(secrets, name)) {
      throw errors.badRequest(
        'secret_missing',
        `Secret '${name}' is not set for this tool; set it with PUT /v1/stores/{storeId}/tools/{toolId}/secrets.`,
      );
    }
    return secrets[name];
  });
}

/** Appends top-level scalar input fields to the query (GET/DELETE). Appends, never replaces, so a configured parameter keeps its value. */
function withQuery(url: string, input: unknown): string {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return url;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(input)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') q.append(k, String(v));
  }
  const qs = q.toString();
  if (!qs) return url;
  // String surgery rather than URL.searchParams, which would re-encode the configured query
  // (and any secret in it).
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const sep = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  return base + sep + qs;
}

export async function runHttpTool(cfg: HttpToolConfig, input: unknown, secrets: Record<string, string>, given: RunOptions = {}): Promise<RunOutcome> {
  const opts = { ...runDefaults, ...given };
  const values = Object.values(secrets).filter(Boolean);
  // URL parsing lower-cases host names, so a secret in the host appears lower-cased in egress messages.
  const hide = [...values, ...values.map((v) => v.toLowerCase())];
  const fail = (status: 'error' | 'timeout', message: string): RunOutcome => ({ status, message: redact(message, hide) });
  try {
    const method = (cfg.method ?? 'POST').toUpperCase();
    if (!METHODS.has(method)) return fail('error', `Unsupported HTTP method '${method}': use GET, POST, PUT, PATCH or DELETE.`);
    let url = fillSecrets(cfg.url, secrets);
    const headers = new Headers({ accept: 'application/json', 'user-agent': 'svc-tools/1' });
    let body: string | undefined;
    if (BODY_METHODS.has(method)) {
      body = JSON.stringify(input ?? null);
      headers.set('content-type', 'application/json');
    } else {
      url = withQuery(url, input);
    }
    // Configured headers last: a tool may need its own Accept or User-Agent.
    for (const [name, value] of Object.entries(cfg.headers ?? {})) headers.set(name, fillSecrets(value, secrets));
    const t = cfg.timeout_ms;
    const timeoutMs = typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : DEFAULT_TOOL_TIMEOUT_MS;

    const res = await egressFetch(url, {
      method,
      headers,
      body,
      timeoutMs,
      maxBytes: MAX_BYTES,
      // Not followed: the guard keeps custom headers (X-Api-Key ...) across origins, so a
      // redirect could carry a secret to another host. A 3xx is reported like any non-2xx.
      followRedirects: false,
      // https only, like webhooks: headers carry secrets. Checked when a tool is saved, and here
      // again for tools saved before that rule.
      httpsOnly: true,
      purpose: 'tool',
      allow: opts.allow,
      resolver: opts.resolver,
      ca: opts.ca,
    });
    if (res.truncated) return fail('error', `The tool endpoint's response is larger than 1 MiB.`);
    // Redact the whole text before cutting it, so a cut can never leave a secret's prefix.
    const text = redact(res.text(), hide);
    if (res.status < 200 || res.status > 299) {
      const excerpt = text.trim().slice(0, 200);
      return fail('error', `HTTP ${res.status} from the tool endpoint${excerpt ? `: ${excerpt}` : '.'}`);
    }
    if (!text.trim()) return { status: 'success', result: null };
    let parsed: unknown;
    try {
      // Parsed whatever the content type: many endpoints send JSON as text/plain.
      parsed = JSON.parse(res.text());
    } catch {
      return { status: 'success', result: { text } };
    }
    return { status: 'success', result: redactDeep(parsed, hide) };
  } catch (err) {
    if (err instanceof EgressError) return fail(err.code === 'egress_timeout' ? 'timeout' : 'error', err.message);
    // fillSecrets, Headers (invalid header value) and anything unexpected: still redacted.
    return fail('error', err instanceof Error ? err.message : String(err));
  }
}
