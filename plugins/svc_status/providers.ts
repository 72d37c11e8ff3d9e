import type { Clock, Db, ProviderConfig } from '../../core/sdk';

/** Failed calls or probes in a row that make a provider `failing` (an incident opens). */
export const FAILURES_TO_OPEN = 3;
/** Successes in a row that make a failing provider `operational` again (its incident closes). */
export const SUCCESSES_TO_CLOSE = 2;
const PROBE_TIMEOUT_MS = 10_000;

/** One provider's cheapest authenticated GET: it proves the address, the credential and the service answer. */
export interface Probe {
  name: string;
  url: string;
  headers: Record<string, string>;
}

const trim = (u: string) => u.replace(/\/+$/, '');

/**
 * The probes of the providers the operator configured (core/providers' settings): a list of
 * models (OpenAI-compatible, Anthropic), SearXNG's configuration, Brave's smallest search, the
 * Stability and remove.bg accounts. A provider that is not configured is not probed.
 */
export function probesOf(c: ProviderConfig): Probe[] {
  const out: Probe[] = [];
  if (c.openai_base_url || c.openai_api_key)
    out.push({
      name: 'openai',
      url: `${trim(c.openai_base_url ?? 'https://api.openai.com/v1')}/models`,
      headers: c.openai_api_key ? { authorization: `Bearer ${c.openai_api_key}` } : {},
    });
  if (c.anthropic_api_key)
    out.push({
      name: 'anthropic',
      url: `${trim(c.anthropic_base_url ?? 'https://api.anthropic.com/v1')}/models?limit=1`,
      headers: { 'x-api-key': c.anthropic_api_key, 'anthropic-version': '2023-06-01' },
    });
  if (c.searxng_url) out.push({ name: 'searxng', url: `${trim(c.searxng_url)}/config`, headers: {} });
  else if (c.brave_api_key)
    out.push({
      name: 'brave',
      url: `${trim(c.brave_url ?? 'https://api.search.brave.com')}/res/v1/web/search?q=status&count=1`,
      headers: { 'x-subscription-token': c.brave_api_key, accept: 'application/json' },
    });
  if (c.stability_api_key)
    out.push({
      name: 'stability',
      url: `${trim(c.stability_url ?? 'https://api.stability.ai')}/v1/user/account`,
      headers: { authorization: `Bearer ${c.stability_api_key}` },
    });
  if (c.removebg_api_key)
    out.push({
      name: 'removebg',
      url: `${trim(c.removebg_url ?? 'https://api.remove.bg')}/v1.0/account`,
      headers: { 'x-api-key': c.removebg_api_key },
    });
  return out;
}

/**
 * One call's or probe's outcome, counted in a row: the third failure in a row marks the provider
 * `failing`, the second success in a row after that `operational`. One statement, so processes
 * probing at once (every one probes) add up instead of overwriting each other.
 */
export async function recordOutcome(db: Db, clock: Clock, name: string, ok: boolean, error?: string) {
  await db.query(
    `INSERT INTO svc_status_providers AS p (name, status, failures_in_row, successes_in_row, last_checked_at, last_error)
     VALUES ($1, 'operational', CASE WHEN $2 THEN 0 ELSE 1 END, CASE WHEN $2 THEN 1 ELSE 0 END, $3, $4)
     ON CONFLICT (name) DO UPDATE SET
       failures_in_row = CASE WHEN $2 THEN 0 ELSE p.failures_in_row + 1 END,
       successes_in_row = CASE WHEN $2 THEN p.successes_in_row + 1 ELSE 0 END,
       status = CASE
         WHEN NOT $2 AND p.failures_in_row + 1 >= ${FAILURES_TO_OPEN} THEN 'failing'
         WHEN $2 AND p.status = 'failing' AND p.successes_in_row + 1 >= ${SUCCESSES_TO_CLOSE} THEN 'operational'
         ELSE p.status END,
       last_checked_at = $3,
       last_error = CASE WHEN $2 THEN p.last_error ELSE $4 END`,
    [name, ok, clock.now(), ok ? null : (error ?? 'failed').slice(0, 500)],
  );
}

/** Runs every probe once, each recorded as an outcome. */
export async function probeProviders(db: Db, clock: Clock, probes: Probe[]) {
  await Promise.all(
    probes.map(async (p) => {
      let ok = false;
      let error: string | undefined;
      try {
        const res = await fetch(p.url, { headers: p.headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await res.body?.cancel().catch(() => {});
        ok = res.ok;
        if (!ok) error = `GET ${new URL(p.url).pathname} answered HTTP ${res.status}`;
      } catch (e) {
        error = `GET ${new URL(p.url).pathname} failed: ${e instanceof Error ? e.message : String(e)}`;
      }
      await recordOutcome(db, clock, p.name, ok, error);
    }),
  );
}

/** The providers svc has heard from, for get_status. */
export const providerStatuses = (db: Db) => db.query<{ name: string; status: string }>('SELECT name, status FROM svc_status_providers ORDER BY name');

/** The failing ones, for the incident check. */
export const failingProviders = (db: Db) =>
  db.query<{ name: string; failures_in_row: number; last_error: string | null; last_checked_at: Date }>(
    `SELECT name, failures_in_row, last_error, last_checked_at FROM svc_status_providers WHERE status = 'failing' ORDER BY name`,
  );
