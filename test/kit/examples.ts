/**
 * Example inputs for the convention sweeps: a fresh store in which every action's `example`
 * (core/plugins/contract.ts) can be resolved, making the resources it refers to first. Fixtures
 * are made through `invoke` (fast, and the same checks a caller meets); the calls under test go
 * through REST or MCP.
 */
import { createKey, createStore } from '../../core/keys';
import {
  noExampleReason,
  type ActionDef,
  type CallerCtx,
  type ExampleKit,
  type PluginDef,
  type Principal,
  type Store,
} from '../../core/plugins/contract';
import { callerCtx, invoke, resolveAction } from '../../core/plugins/invoke';
import type { Harness } from './setup';

/**
 * An action with no example the sweeps can use, and why. `exempt`: the plugin said so with
 * noExample(reason), and the sweeps print it; otherwise the plugin forgot one, and they fail.
 */
export class Uncoverable extends Error {
  constructor(
    message: string,
    readonly exempt = false,
  ) {
    super(message);
  }
}

export interface ActionRef {
  plugin: PluginDef;
  actionName: string;
  action: ActionDef;
}

export interface World {
  store: Store;
  /** An all-scopes API key of this store, and its id. */
  key: string;
  keyId: string;
  /** /v1/stores/<id> */
  base: string;
  /** The caller every fixture is made as (an all-scopes key of this store). */
  ctx: CallerCtx;
  /** Runs an action with its example (fields of `over` replacing its fields); returns its output. */
  make<T = any>(target: string, over?: Record<string, unknown>): Promise<T>;
  /** A valid input for the action, its parent resources made first. Throws Uncoverable. */
  example(ref: ActionRef, over?: Record<string, unknown>): Promise<Record<string, any>>;
  /** Every output made in this store so far: what must never show in another store's answers. */
  made: unknown[];
}

const ADMIN: Principal = { kind: 'admin', scopes: ['admin'], livemode: false };

/** A new store with an all-scopes key, ready to make examples in. */
export async function freshWorld(h: Harness, name = 'Sweep store'): Promise<World> {
  const store = await createStore(h.db, h.clock, { name, plan: 'pro' });
  // Every scope any plugin accepts, bare ones too: fixtures are made whatever the plugin declares.
  const scopes = [...new Set([...h.registry.scopes, ...h.registry.plugins.flatMap((p) => [...p.scopes.read, ...p.scopes.write])])];
  const created = await createKey(h.db, h.clock, { storeId: store.id, scopes, livemode: false });
  const principal: Principal = { kind: 'api_key', keyId: created.id, storeId: store.id, scopes, livemode: false };
  // Made as a client of the in-process app would make them: links in them name its origin.
  const ctx = callerCtx(
    h,
    principal,
    { id: store.id, name: store.name, plan: store.plan },
    { requestId: 'req_sweep_fixture', origin: 'http://svc.test' },
  );
  const made: unknown[] = [];

  async function example(ref: ActionRef, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const declared = ref.action.example;
    const reason = noExampleReason(declared);
    if (reason) throw new Uncoverable(`${ref.plugin.name}.${ref.actionName}: ${reason}`, true);
    if (typeof declared === 'function') return { ...(await declared(kit)), ...over };
    // A plain object gives the fields it names; path ids it leaves out are derived as usual.
    if (declared) {
      const given = { ...structuredClone(declared), ...over };
      return { ...(await derived(ref, given)), ...given };
    }
    return { ...(await derived(ref, over)), ...over };
  }

  /** No example declared: each path parameter from the POST route at the path before it. */
  async function derived(ref: ActionRef, given: Record<string, unknown>) {
    const input: Record<string, unknown> = {};
    const path = ref.action.rest?.path ?? '';
    for (const [, param] of path.matchAll(/:([a-z_]+)/g)) {
      if (param in given) {
        input[param] = given[param];
        continue;
      }
      const prefix = path.slice(0, path.indexOf(`/:${param}`));
      const parent = Object.entries(ref.plugin.actions).find(
        ([, a]) => a.rest?.method === 'POST' && a.rest.path === prefix && (a.rest.scope ?? 'store') === (ref.action.rest?.scope ?? 'store'),
      );
      if (!parent)
        throw new Uncoverable(`${ref.plugin.name}.${ref.actionName}: no example, and no POST ${prefix} in ${ref.plugin.name} makes its :${param}`);
      // The parent's own path parameters are the ones already chosen (a delivery of this webhook).
      const made = await run({ plugin: ref.plugin, actionName: parent[0], action: parent[1] }, input);
      const id = (made as any)?.id;
      if (typeof id !== 'string') throw new Uncoverable(`${ref.plugin.name}.${parent[0]} made no id for :${param} of ${ref.actionName}`);
      input[param] = id;
    }
    return input;
  }

  async function run(ref: ActionRef, over: Record<string, unknown> = {}) {
    const input = await example(ref, over);
    const admin = ref.action.rest?.auth === 'admin';
    const out = await invoke(ref.plugin, ref.action, { ...ctx, principal: admin ? ADMIN : principal }, input);
    // A raw answer (a chat stream) is read to its end, so the work it started is over.
    if (out instanceof Response) {
      await out.text();
      made.push(Object.fromEntries(out.headers));
    } else made.push(out);
    return out;
  }

  const make = async (target: string, over?: Record<string, unknown>) => {
    const { plugin, action, actionName } = resolveAction(h.registry, target);
    return run({ plugin, action, actionName }, over) as Promise<any>;
  };
  const kit: ExampleKit = { make, ctx };
  return { store: ctx.store, key: created.key!, keyId: created.id, base: ctx.storePath, ctx, make, example, made };
}
