import { manualClock } from '../../core/clock';
import { createApp } from '../../core/http/app';
import { DEFAULT_LIMITS, type PlanLimit } from '../../core/http/rate-limit';
import { LOCAL_HOSTS, makeServices } from '../../core/http/services';
import { createKey, createStore } from '../../core/keys';
import type { PluginDef } from '../../core/plugins/contract';
import { createRegistry } from '../../core/plugins/registry';
import { pluginList } from '../../plugins';
import { sharedDb } from './db';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** Every plugin of svc (tests that want a subset pass their own list to setup). */
export const allPlugins: readonly PluginDef[] = pluginList;
/**
 * Every plugin but those that hear every store's events whatever the store subscribed to: the audit
 * trail (every type) and analytics (orders, for its daily rollups), with the plugins that require them. Tests
 * of the outbox's own rule (an event nobody hears is not stored) run without them.
 */
export const withoutStandingListeners: readonly PluginDef[] = withoutPlugins(['audit_trail', 'analytics']);

/** The plugin list less `names` and, transitively, every plugin that requires one of them. */
function withoutPlugins(names: string[]): PluginDef[] {
  const gone = new Set(names);
  for (let changed = true; changed;) {
    changed = false;
    for (const p of pluginList) if (!gone.has(p.name) && p.requires?.some((r) => gone.has(r))) (gone.add(p.name), (changed = true));
  }
  return pluginList.filter((p) => !gone.has(p.name));
}

/** Limits high enough that only the rate-limit tests ever meet them. */
export const NO_LIMITS: Record<string, PlanLimit> = Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((p) => [p, { perMinute: 1_000_000, burst: 1_000_000 }]),
);

export interface Harness extends Awaited<ReturnType<typeof setup>> {}

export interface SetupOptions {
  /** The plugins of this app (default: all); only their migrations run. */
  plugins?: readonly PluginDef[];
  /** Extra plugins beside the default list (a fixture plugin). */
  extra?: readonly PluginDef[];
  /** Plugin configuration, as the environment would give it (SVC_AGENTS_..., OPENAI_BASE_URL). */
  env?: Record<string, string | undefined>;
  limits?: Record<string, PlanLimit>;
  plan?: string;
  now?: string;
  /** false: MCP tools/call always takes the SDK path (core/mcp/fast-call.ts is skipped). */
  mcpFastPath?: boolean;
}

/** An in-process app over the shared test database, with a fresh store and an all-scopes key. */
export async function setup(opts: SetupOptions = {}) {
  const plugins = [...(opts.plugins ?? allPlugins), ...(opts.extra ?? [])];
  const db = await sharedDb(plugins);
  const clock = manualClock(opts.now ?? '2026-04-01T00:00:00Z');
  const serverFor = (env: Record<string, string | undefined>) => {
    const registry = createRegistry(plugins, { env });
    const svc = makeServices({
      db,
      clock,
      registry,
      limits: opts.limits ?? NO_LIMITS,
      adminToken: ADMIN_TOKEN,
      allowedHosts: ['svc.test', ...LOCAL_HOSTS],
      mcpFastPath: opts.mcpFastPath,
    });
    return { registry, svc, app: createApp(svc) };
  };
  const { registry, svc, app } = serverFor(opts.env ?? {});
  const store = await createStore(db, clock, { name: 'Test store', plan: opts.plan ?? 'pro' });
  const key = (await createKey(db, clock, { storeId: store.id, scopes: [...registry.scopes], livemode: false })).key!;
  const base = `/v1/stores/${store.id}`;

  /** A request to an absolute path, with the store's key unless headers override it. */
  const raw = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => send(app, method, path, body, headers);
  async function send(app: ReturnType<typeof createApp>, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const url = `http://svc.test${path}`;
    const init: RequestInit = { method, headers: { 'x-api-key': key, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as any)['content-type'] = 'application/json';
    }
    const res = await app.handle(new Request(url, init));
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  }

  /** A request to a path relative to this store, e.g. call('GET', '/products'). */
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => raw(method, base + path, body, headers);

  async function newKey(scopes: string[], extra: { expiresAt?: Date } = {}) {
    return (await createKey(db, clock, { storeId: store.id, scopes, livemode: false, ...extra })).key!;
  }

  /** The same store and key through another server process of this database, configured by `env`. */
  function elsewhere(env: Record<string, string | undefined>) {
    const other = serverFor(env);
    return {
      ...other,
      call: (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        send(other.app, method, base + path, body, headers),
    };
  }

  return { db, clock, svc, registry, app, store, key, base, call, raw, newKey, elsewhere };
}

export const product = (over: Record<string, unknown> = {}) => ({
  name: 'Widget',
  sku: `SKU-${crypto.randomUUID().slice(0, 8)}`,
  type: 'simple',
  status: 'active',
  pricing_data: { retail: 19.99 },
  stock_quantity: 10,
  ...over,
});
