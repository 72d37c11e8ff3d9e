import type { TSchema } from '@sinclair/typebox';
import { errorDef, registerErrors } from '../errors';
import { ALL_EVENTS, CORE_EVENTS } from '../events/types';
import { readSite } from '../net/site';
import type { ActionDef, ActionRef, PluginDef, Registry } from './contract';
import { readPluginConfig } from './config';
import { jobsPlugin, jobTools } from '../jobs/resource';

// Declared with the contract (a plugin's ctx names the registry); re-exported for the core's users.
export type { ActionRef, Registry } from './contract';

/** The key scopes of SPEC 5.1: every credential may hold them, whatever is registered. */
export const SPEC_SCOPES = [
  'products:read',
  'products:write',
  'orders:read',
  'orders:write',
  'customers:read',
  'customers:write',
  'inventory:read',
  'inventory:write',
  'ai:read',
  'ai:write',
  'media:read',
  'media:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
];

export const flatName = (plugin: PluginDef, actionName: string) => `${plugin.name}_${actionName}`;

const NAME = /^[a-z][a-z0-9_]*$/;
const SCOPE = /^[a-z][a-z_]*(:[a-z_]+)?$/;
const EVENT = /^[a-z][a-z_]*\.[a-z_.]+$/;
const MAX_TOOL_NAME = 64;

class RegistryError extends Error {}
const check = (ok: unknown, message: string) => {
  if (!ok) throw new RegistryError(`plugin registry: ${message}`);
};

/**
 * The plugins, each after those it `requires` (the order their migrations run in). The one check
 * of `requires`: every name is registered, and no plugin requires itself through others.
 */
export function requiredFirst(plugins: readonly PluginDef[]): PluginDef[] {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  const out: PluginDef[] = [];
  const visit = (p: PluginDef, path: string[]) => {
    if (out.includes(p)) return;
    check(!path.includes(p.name), `plugins require each other: ${[...path, p.name].join(' -> ')}`);
    for (const name of p.requires ?? []) {
      const required = byName.get(name);
      check(required, `${p.name} requires '${name}', which is not registered`);
      visit(required!, [...path, p.name]);
    }
    out.push(p);
  };
  for (const p of plugins) visit(p, []);
  return out;
}

/** A route's identity for collision checks: method + path with parameter names erased. */
function routeKey(a: ActionDef): string | undefined {
  if (!a.rest) return undefined;
  const base = (a.rest.scope ?? 'store') === 'store' ? '/v1/stores/:storeId' : '';
  return `${a.rest.method} ${(base + a.rest.path).replace(/:[a-z_]+/gi, ':')}`;
}

/**
 * The plugins as declared, plus what the kit derives for jobs: the `jobs` resource (REST) when any
 * plugin has jobs or reactions, and `get_job` / `cancel_job` on each plugin whose actions start jobs.
 */
function withJobResource(declared: PluginDef[]): PluginDef[] {
  if (!declared.some((p) => p.jobs || p.on || p.onSubscribed)) return declared;
  const plugins = declared.map((p) =>
    Object.values(p.actions).some((a) => a.startsJob) ? { ...p, actions: { ...p.actions, ...jobTools(p.name) } } : p,
  );
  return [...plugins, jobsPlugin(declared)];
}

/** `env`: where plugin configuration is read from (process.env at boot; tests pass their own). */
export function createRegistry(declared: PluginDef[], opts: { env?: Record<string, string | undefined> } = {}): Registry {
  const defs = withJobResource(declared);
  const byName = new Map<string, PluginDef>();
  const byFlatName = new Map<string, ActionRef>();
  const events = new Map<string, TSchema>(Object.entries(CORE_EVENTS));
  const routes = new Map<string, string>();
  const scopes = new Set(SPEC_SCOPES);
  const bare = new Set<string>();
  const tables = new Map<string, string>();

  for (const p of defs) {
    check(NAME.test(p.name), `plugin name '${p.name}' must be snake_case`);
    check(!byName.has(p.name), `two plugins are named '${p.name}'`);
    byName.set(p.name, p);
    for (const s of [...p.scopes.read, ...p.scopes.write]) {
      check(SCOPE.test(s), `${p.name}: malformed scope '${s}' (expected resource or resource:action)`);
      if (s.includes(':') || p.keyScopes) scopes.add(s);
      // The operator's plugin is not a tool: its scope is never a key's.
      else if (p.tool !== false) bare.add(s);
    }
    for (const t of p.tables ?? []) {
      check(!tables.has(t), `${p.name}: table '${t}' is owned by ${tables.get(t)}`);
      tables.set(t, p.name);
    }
    for (const [type, schema] of Object.entries(p.events ?? {})) {
      check(EVENT.test(type), `${p.name}: malformed event type '${type}' (expected noun.verb)`);
      check(!events.has(type), `${p.name}: event type '${type}' is declared twice`);
      events.set(type, schema);
    }
    if (p.errors) registerErrors(p.name, p.errors);
    for (const [actionName, a] of Object.entries(p.actions)) {
      check(NAME.test(actionName), `${p.name}: action name '${actionName}' must be snake_case`);
      const flat = flatName(p, actionName);
      check(flat.length <= MAX_TOOL_NAME, `${p.name}.${actionName}: the flat tool name '${flat}' is over ${MAX_TOOL_NAME} characters`);
      check(!byFlatName.has(flat), `${p.name}.${actionName}: the flat tool name '${flat}' is taken by another plugin's action`);
      byFlatName.set(flat, { plugin: p, actionName, action: a });
      check(!a.internal || !a.rest, `${p.name}.${actionName}: an internal action (ctx.call only) has no rest route`);
      if (a.rest?.asTool) {
        check(a.rest.response === 'raw', `${p.name}.${actionName}: asTool is for raw answers (rest.response: 'raw')`);
        // A link runs the action again on every fetch: only a read may be repeated that way.
        check(a.rest.asTool !== 'link' || a.kind === 'read', `${p.name}.${actionName}: asTool 'link' is for read actions`);
      }
      const key = routeKey(a);
      if (key) {
        check(!routes.has(key), `${p.name}.${actionName}: route ${a.rest!.method} ${a.rest!.path} collides with ${routes.get(key)}`);
        routes.set(key, `${p.name}.${actionName}`);
      }
    }
  }
  // Checks that need every plugin: names used across plugins.
  const reactions = new Map<string, string[]>();
  for (const p of defs) {
    for (const [name, j] of Object.entries(p.jobs ?? {})) {
      check(NAME.test(name) && name !== 'on', `${p.name}: job name '${name}' must be snake_case (and not 'on': the reactions' queue)`);
      check(!!j.handler !== !!j.batch, `${p.name}.${name}: a job has a handler or a batch handler, one of them`);
    }
    for (const [type, reaction] of Object.entries(p.on ?? {})) {
      // '*' reacts to every type any plugin declares (the audit trail); a type named beside it wins for that type.
      const types = type === ALL_EVENTS ? [...events.keys()].filter((t) => !(t in CORE_EVENTS)) : [type];
      check(
        type === ALL_EVENTS || (events.has(type) && !(type in CORE_EVENTS)),
        `${p.name} reacts to '${type}', which no plugin declares in its events`,
      );
      if (reaction) for (const t of types) if (!reactions.get(t)?.includes(p.name)) reactions.set(t, [...(reactions.get(t) ?? []), p.name]);
    }
    check(!byFlatName.has(p.name), `plugin name '${p.name}' equals another plugin's flat tool name`);
    for (const c of p.calls ?? []) check(byName.has(c), `${p.name} calls '${c}', which is not registered`);
    for (const [actionName, a] of Object.entries(p.actions)) {
      check(
        !a.startsJob || (!a.atomic && (!a.rest || a.rest.status === 202)),
        `${p.name}.${actionName}: an action that starts a job is not atomic and answers 202`,
      );
      for (const type of a.emits ?? []) check(events.has(type), `${p.name}.${actionName} emits '${type}', which no plugin declares in its events`);
      for (const code of a.errors ?? []) check(errorDef(code), `${p.name}.${actionName} declares error '${code}', which is not in the error table`);
    }
  }

  requiredFirst(defs);

  const configs = new Map(defs.map((p) => [p.name, readPluginConfig(p, opts.env ?? {})]));
  return {
    plugins: defs,
    byName,
    byFlatName,
    scopes: [...scopes],
    grantable: [...new Set([...scopes, ...bare])].sort(),
    events,
    reactions,
    catalog: defs.filter((p) => p.catalog).map((p) => p.name),
    noun: (p) => p.resource ?? p.name,
    configOf: (name) => configs.get(name) ?? {},
    site: readSite(opts.env ?? {}),
  };
}
