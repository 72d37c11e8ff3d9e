import { errors, SvcError } from '../errors';
import { checkerFor, validateInput } from './validate';
import {
  scopesFor,
  type ActionDef,
  type CallerCtx,
  type Ctx,
  type EnqueueOptions,
  type JobCtx,
  type JobObject,
  type PluginDef,
  type Principal,
  type Store,
} from './contract';
import { insertJob } from '../jobs/tracked';
import type { Clock } from '../clock';
import { newRequestId } from '../ids';
import type { Registry } from './contract';
import type { Db } from '../db/types';
import { configuredOrigin } from '../net/site';
import { createLogger, errorFields, type LogFields, type Logger } from '../log';
import { enqueue } from '../jobs/send';
import { subscribedTypes } from '../events/subscriptions';
import { writeEvents } from '../events/outbox';
import type { PendingEvent } from '../events/types';
import { actorOf } from './principal';

export { validateInput };

export function hasScope(granted: string[], accepted: string[]): boolean {
  return accepted.some((s) => granted.includes(s));
}

/** Whether a plugin's ctx.call to `target` runs as that plugin: its own actions, and those it builds on. */
const runsAs = (caller: PluginDef | undefined, target: string) =>
  !!caller && (caller.name === target || caller.requires?.includes(target) || caller.calls?.includes(target));

/**
 * The one scope rule (SPEC 5.4). The operator and the public reach only routes that admit exactly
 * them (checked by the route); every store credential, key or user, needs one of the action's
 * scopes. A plugin's ctx.call to a plugin it lists in `requires` or `calls` runs as that plugin: the caller
 * was let in by the calling action's scopes, and the callee is part of how that action works
 * (reviews reads products to check a product exists, under a `catalog` key). Exported so the
 * tool path can refuse before its approval gate; nothing else decides it.
 */
export function checkScope(plugin: PluginDef, action: ActionDef, caller: Pick<CallerCtx, 'principal' | 'registry' | 'callingPlugin'>): void {
  const { kind, scopes } = caller.principal;
  if (kind === 'admin' || kind === 'public') return;
  if (caller.callingPlugin && runsAs(caller.registry.byName.get(caller.callingPlugin), plugin.name)) return;
  const accepted = scopesFor(plugin, action, kind);
  if (!hasScope(scopes, accepted)) throw errors.scope(accepted);
}

const streamsRecordTheirOwn = (type: string) => {
  throw new Error(`a streaming action emits '${type}' with emitEvents in its own transaction`);
};
const NONE: ReadonlySet<string> = new Set();
const readsDoNotEmit = (type: string) => {
  throw new Error(`a read action cannot emit '${type}'`);
};
const rootLog = createLogger();
const never = new AbortController().signal;

/** What every caller has at hand to build a CallerCtx: the process's services. */
export interface CallerDeps {
  db: Db;
  clock: Clock;
  registry: Registry;
  log?: Logger;
  shutdown?: AbortSignal;
}

/**
 * The one way a caller (REST, the tool path, the CLI, the sweeps' fixtures) says who calls in
 * which store: named fields, no spread of `deps` (a caller may carry more, and copying an object of
 * unknown shape on every call is measurable). `more` holds what only some callers have.
 */
export function callerCtx(
  deps: CallerDeps,
  principal: Principal,
  store: Store,
  more: Pick<CallerCtx, 'http' | 'apiVersion' | 'withChange' | 'origin' | 'mcp'> & { requestId?: string } = {},
): CallerCtx {
  return {
    db: deps.db,
    clock: deps.clock,
    registry: deps.registry,
    log: deps.log,
    shutdown: deps.shutdown,
    principal,
    store,
    requestId: more.requestId ?? newRequestId(),
    storePath: `/v1/stores/${store.id}`,
    http: more.http,
    origin: more.origin,
    apiVersion: more.apiVersion,
    withChange: more.withChange,
    mcp: more.mcp,
  };
}

/**
 * Whether an action runs outside a transaction: a read; an external action (it writes nothing
 * and waits on the outside world); an atomic (one-statement) write when nothing else must commit
 * with it (`joined`: an idempotency or audit record). invoke still opens one when an event the
 * store subscribes to must be written with the change. REST asks the same question before
 * opening the transaction that holds its idempotency record.
 */
export const runsBare = (action: ActionDef, joined: boolean) => action.kind === 'read' || !!action.external || (!!action.atomic && !joined);

/**
 * ctx.emit for one action call: refuses undeclared types (a declaration that lies would break the
 * atomic decision below and the docs), keeps only types the store subscribes to (the rest are not
 * stored at all), and holds them until the transaction writes them.
 */
export function collector(
  plugin: PluginDef,
  emits: readonly string[] | undefined,
  subscribed: ReadonlySet<string>,
  ctx: Pick<CallerCtx, 'clock' | 'registry' | 'principal' | 'requestId'>,
) {
  const pending: PendingEvent[] = [];
  const origin = { actor: actorOf(ctx.principal), request_id: ctx.requestId ?? null };
  const emit = (type: string, data: object) => {
    if (!emits?.includes(type)) throw new Error(`${plugin.name}: emit('${type}') is not declared in the action's emits`);
    if (subscribed.has(type) || ctx.registry.reactions.has(type)) pending.push({ type, data, at: ctx.clock.now(), origin });
  };
  return { pending, emit };
}

/** Whether an event of this type is stored: a webhook of the store subscribes, or some plugin reacts to it. */
const kept = (registry: Registry, subscribed: ReadonlySet<string>) => (type: string) => subscribed.has(type) || registry.reactions.has(type);

// Outputs are checked against their declared schemas under test, so a handler whose answer drifts
// from its documented shape fails the suite instead of surprising a client. Production skips it.
const checkOutputs = process.env.NODE_ENV === 'test' || process.env.SVC_CHECK_OUTPUTS === '1';
function checkOutput(plugin: PluginDef, name: string, action: ActionDef, out: unknown) {
  if (!checkOutputs || action.rest?.response === 'raw' || out === null) return;
  const checker = checkerFor(action.output);
  if (checker.Check(out)) return;
  const e = checker.Errors(out).First();
  throw new Error(`${plugin.name}.${name}: output does not match its schema at ${e?.path || '/'}: ${e?.message}`);
}

/**
 * ctx.log: the call's child logger (request id, plugin), made when first used: most calls log
 * nothing, and a child logger per call is measurable. An object, not a getter on ctx: an accessor
 * in an object literal puts JavaScriptCore on its slow path for the whole literal, spread included
 * (about 2 µs per ctx in a micro-benchmark; 2-3% of an MCP tools/call's CPU in bench/profile.ts).
 */
class LazyLog implements Logger {
  private made?: Logger;
  constructor(
    private readonly caller: CallerCtx,
    private readonly plugin: string,
  ) {}
  private get log(): Logger {
    return (this.made ??= (this.caller.log ?? rootLog).child({ request_id: this.caller.requestId, plugin: this.plugin }));
  }
  debug(msg: string, fields?: LogFields) {
    this.log.debug(msg, fields);
  }
  info(msg: string, fields?: LogFields) {
    this.log.info(msg, fields);
  }
  warn(msg: string, fields?: LogFields) {
    this.log.warn(msg, fields);
  }
  error(msg: string, fields?: LogFields) {
    this.log.error(msg, fields);
  }
  child(fields: LogFields): Logger {
    return this.log.child(fields);
  }
}

/** The parts of ctx bound to the plugin and this call: config, log, call, enqueue, afterCommit. */
function bind(plugin: PluginDef, caller: CallerCtx, queue: (() => void | Promise<void>)[], emit: Ctx['emit']): (db: Db) => Ctx {
  const log = new LazyLog(caller, plugin.name);
  // The origin as a plain value when the call has no request to work it out from (MCP, where the
  // caller names it; or SVC_PUBLIC_URL): a getter only when it is asked of the request, or unknown.
  const site = caller.registry.site;
  const origin = caller.http || (!caller.origin && !site.publicUrl) ? undefined : (caller.origin ?? site.publicUrl);
  return (db) => {
    const ctx: Ctx = {
      ...caller,
      db,
      log,
      shutdown: caller.shutdown ?? never,
      origin: origin!,
      config: caller.registry.configOf(plugin.name),
      emit,
      afterCommit: (fn) => void queue.push(fn),
      enqueue: async (job, input, opts) => void (await queueJob(plugin, caller, db, job, input, opts)),
      startJob: (job, input, opts) => queueJob(plugin, caller, db, job, input, opts, true) as Promise<JobObject>,
      call: async (target, input, opts) => {
        const ref = resolveAction(caller.registry, target);
        const nested = { ...caller, db, afterCommitQueue: queue, withChange: undefined, callingPlugin: plugin.name };
        try {
          return (await invoke(ref.plugin, ref.action, nested, input)) as any;
        } catch (e) {
          // The callee names its own field; the caller's client sent another one.
          if (opts?.notFoundParam && e instanceof SvcError && e.code === 'resource_missing')
            throw new SvcError(e.code, e.message, opts.notFoundParam, e.headers);
          throw e;
        }
      },
    };
    if (caller.http)
      Object.defineProperty(ctx, 'origin', {
        get: () => caller.http?.origin ?? caller.origin ?? configuredOrigin(caller.registry.site),
        enumerable: true,
        configurable: true,
      });
    // No origin is known (a job or stdio, without SVC_PUBLIC_URL): reading it still throws the clear
    // error, but a copy (`{ ...ctx, db: tx }`) must not, so the getter is left out of spreads.
    else if (origin === undefined) Object.defineProperty(ctx, 'origin', { get: () => configuredOrigin(caller.registry.site), enumerable: false });
    return ctx;
  };
}

/**
 * ctx.enqueue and ctx.startJob: the input is checked now (a bad one is the calling plugin's bug,
 * refused in its transaction), and pg-boss's row is written on `db`, the change's transaction.
 * A started job also gets the row a client reads; its id rides in the job's data.
 */
async function queueJob(
  plugin: PluginDef,
  caller: CallerCtx,
  db: Db,
  name: string,
  input: object | readonly object[],
  opts: EnqueueOptions = {},
  tracked = false,
): Promise<JobObject | undefined> {
  const spec = plugin.jobs?.[name];
  if (!spec) throw new Error(`${plugin.name}: enqueue('${name}') is not a declared job`);
  const inputs = Array.isArray(input) ? input : [input];
  for (const i of inputs) validateInput(spec.input, i);
  const storeId = caller.store?.id as string | undefined;
  if (tracked && !storeId) throw new Error(`${plugin.name}: startJob('${name}') needs a store`);
  const tx = opts.db ?? db;
  const started = tracked ? await insertJob(tx, storeId!, `${plugin.name}.${name}`, caller.clock.now()) : undefined;
  // Seconds stay seconds from the database's now (pg-boss's own time), whatever the process clock says.
  const startAfter = opts.startAfter;
  const data = (i: unknown): JobData => ({ input: i, ...(storeId ? { store_id: storeId } : {}), ...(started ? { job_id: started.id } : {}) });
  await enqueue(
    tx,
    `${plugin.name}.${name}`,
    inputs.map((i) => ({ data: data(i), startAfter, singletonKey: opts.singletonKey })),
  );
  return started;
}

/**
 * The ctx of a job or a reaction: an action's ctx as the plugin (its own scopes; ctx.call runs as
 * it to plugins it requires or calls), in the job's store. `emits` are the plugin's own event
 * types; the caller writes what was emitted (`events.pending`) and runs `afterCommit`.
 */
export function jobContext(plugin: PluginDef, deps: CallerDeps, store: Store | undefined, db: Db, extra: Pick<JobCtx, 'jobId' | 'progress'>) {
  const principal: Principal = {
    kind: 'job',
    plugin: plugin.name,
    storeId: store?.id,
    scopes: [...plugin.scopes.read, ...plugin.scopes.write],
    livemode: false,
  };
  const caller: CallerCtx = {
    db: deps.db,
    clock: deps.clock,
    registry: deps.registry,
    log: deps.log,
    shutdown: deps.shutdown,
    principal,
    store: store as Store,
    requestId: newRequestId(),
    storePath: store ? `/v1/stores/${store.id}` : '',
    callingPlugin: plugin.name,
  };
  // Every event is kept here; writeJobEvents keeps those the store subscribes to or a plugin reacts to.
  const events = collector(plugin, Object.keys(plugin.events ?? {}), EVERY, caller);
  const queue: (() => void | Promise<void>)[] = [];
  const ctx: JobCtx = Object.assign(bind(plugin, caller, queue, events.emit)(db), extra);
  return { ctx, events, queue };
}

const EVERY = { has: () => true } as unknown as ReadonlySet<string>;

/** Writes what a job or reaction emitted, in `tx`: the types the store subscribes to, and those some plugin reacts to. */
export async function writeJobEvents(tx: Db, registry: Registry, storeId: string | undefined, pending: PendingEvent[]) {
  if (!pending.length) return;
  if (!storeId) throw new Error('a job without a store has no store to emit events in');
  const subscribed = await subscribedTypes(tx, storeId);
  const kept = pending.splice(0).filter((e) => subscribed.has(e.type) || registry.reactions.has(e.type));
  await writeEvents(tx, storeId, kept, { reactions: registry.reactions });
}

/** What pg-boss holds for a declared job: its input, its store, the row a client follows. */
export interface JobData {
  input: unknown;
  store_id?: string;
  job_id?: string;
}

/** `'plugin.action'` to its declaration; a typo is a bug in the calling plugin. */
export function resolveAction(registry: Registry, target: string) {
  const [pluginName, actionName] = target.split('.');
  const plugin = registry.byName.get(pluginName);
  const action = plugin?.actions[actionName];
  if (!plugin || !action) throw new Error(`ctx.call: no action '${target}' is registered`);
  return { plugin, action, actionName };
}

export async function runAfterCommit(queue: (() => void | Promise<void>)[], log: Logger) {
  for (const fn of queue.splice(0)) {
    try {
      await fn();
    } catch (e) {
      log.error('after-commit work failed', errorFields(e));
    }
  }
}

/**
 * The one choke point every caller (REST, MCP, agents, jobs, ctx.call) goes through: check scope,
 * validate input, run the handler with an explicit ctx; a write runs in one transaction together
 * with the events it emitted, and its after-commit work runs once that transaction has committed.
 */
export async function invoke(plugin: PluginDef, action: ActionDef, caller: CallerCtx, input: unknown): Promise<unknown> {
  checkScope(plugin, action, caller);
  validateInput(action.input, input);
  const nested = caller.afterCommitQueue;
  const queue = nested ?? [];
  const finish = async (out: unknown) => {
    checkOutput(plugin, actionNameOf(plugin, action), action, out);
    if (!nested && queue.length) await runAfterCommit(queue, caller.log ?? rootLog);
    return out;
  };
  if (action.rest?.response === 'raw')
    return finish(await action.handler(bind(plugin, caller, queue, streamsRecordTheirOwn)(caller.db), input as any));
  // Reads change nothing, so they emit nothing: the hot path skips the event machinery.
  if (action.kind === 'read') return finish(await action.handler(bind(plugin, caller, queue, readsDoNotEmit)(caller.db), input as any));
  const subscribed = action.emits?.length ? await subscribedTypes(caller.db, caller.store.id) : NONE;
  const events = collector(plugin, action.emits, subscribed, caller);
  const ctxFor = bind(plugin, caller, queue, events.emit);
  // An atomic (one-statement) write stays outside a transaction unless one of its events must be
  // written with it; so does an external action (it writes nothing and waits on the outside world).
  if (runsBare(action, !!caller.withChange) && !action.emits?.some(kept(caller.registry, subscribed))) {
    const out = await action.handler(ctxFor(caller.db), input as any);
    await caller.withChange?.(caller.db, out);
    return finish(out);
  }
  // A write happens whole or not at all, whoever calls it (inside a caller's transaction this reuses it).
  const out = await caller.db.transaction(async (tx) => {
    const result = await action.handler(ctxFor(tx), input as any);
    if (events.pending.length) await writeEvents(tx, caller.store.id, events.pending.splice(0), { reactions: caller.registry.reactions });
    await caller.withChange?.(tx, result);
    return result;
  });
  return finish(out);
}

const names = new WeakMap<ActionDef, string>();
function actionNameOf(plugin: PluginDef, action: ActionDef) {
  let n = names.get(action);
  if (!n) names.set(action, (n = Object.entries(plugin.actions).find(([, a]) => a === action)?.[0] ?? '?'));
  return n;
}
