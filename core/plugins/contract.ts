import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { Migration } from '../db/migrate';
import type { Logger } from '../log';
import type { ErrorDef } from '../errors';
import type { Site } from '../net/site';
import type { McpApps, McpClient, McpPromptDef, McpResourceDef } from './mcp-types';
import type { JobObject } from './job-object';
import type { AuthKind, Authenticator, RestMapping } from './rest-mapping';

export type ActionKind = 'read' | 'write' | 'destructive';
import type { Plan } from '../plans';
import type { Principal, Store } from './principal';
import type { EventOrigin } from '../events/types';
export type { Plan };
export { actorOf, credentialId, type Principal, type Store } from './principal';

export interface EnqueueOptions {
  /** Run no earlier than this (a Date, or seconds from now). */
  startAfter?: Date | number;
  /** pg-boss singleton key: one pending job per key. */
  singletonKey?: string;
  /**
   * The transaction to write the job in, when the handler opened its own (a job's handler runs
   * outside one: `ctx.db.transaction(tx => ... ctx.enqueue(name, input, { db: tx }))`). Default: this call's.
   */
  db?: Db;
}

/**
 * Everything a handler may use, passed explicitly. `C` is the plugin's settings: a plugin with a
 * `config` schema names its own context `Ctx<Static<typeof config>>` (users' `UsersCtx`), so its
 * code reads `ctx.config.session_ttl_seconds` as a number, with no cast; plain `Ctx` leaves them untyped.
 */
export interface Ctx<C = any> {
  db: Db;
  /** The store of a store-scoped route; global routes (auth, admin, public pages) have none. */
  store: Store;
  principal: Principal;
  clock: Clock;
  requestId: string;
  /** Base path of this store's REST resources, for `url` fields of lists. */
  storePath: string;
  /** The API version a REST request selected (X-API-Version, else latest); absent for other callers (latest). */
  apiVersion?: string;
  /** The plugins of this process (names, actions, scopes, event types), built once at boot. */
  registry: Registry;
  /** Structured logger carrying the request id and the plugin's name. */
  log: Logger;
  /** This plugin's configuration, validated at boot against its declared `config` schema (defaults applied). */
  config: C;
  /** Ends when the process shuts down: long-lived work (streams, waits) stops on it. */
  shutdown: AbortSignal;
  /**
   * Records a domain event (SPEC 6.1) caused by this change: call it in the handler, with the
   * resource as the API returns it. invoke writes it in the same transaction, so it exists exactly
   * when the change commits. Only types the action declares in `emits` may be emitted.
   */
  emit(type: string, data: object): void;
  /**
   * Runs another plugin's action (`'products.get_product'`) through invoke, inside this call's
   * transaction when there is one, in this call's store. To a plugin this one lists in `requires`
   * or `calls` it runs as this plugin: the caller's scopes are not checked again (the caller was let in by
   * this action's own scopes). To any other plugin it is held to the caller's scopes. The result
   * is typed for actions of plugins that declare `CallableActions` (see ActionsOf).
   */
  call<K extends string>(target: K, input: unknown, opts?: CallOptions): Promise<K extends keyof CallableActions ? CallableActions[K] : any>;
  /**
   * Queues one of this plugin's declared `jobs` with its input (checked against the job's schema
   * now: a bad input is the caller's bug), in this call's transaction: it exists exactly when the
   * change commits. The job runs in this store. Internal work: no client follows it (see startJob).
   */
  enqueue(job: string, input: object | readonly object[], opts?: EnqueueOptions): Promise<void>;
  /**
   * Like enqueue, for long work a client waits for: the job gets a row a client reads at
   * `GET STORE/jobs/{id}` (and cancels). Answers that job, which an action declaring `startsJob`
   * returns as its output (REST 202).
   */
  startJob(job: string, input: object, opts?: EnqueueOptions): Promise<JobObject>;
  /** Runs `fn` once the change has committed (never if it rolls back): signals, caches. */
  afterCommit(fn: () => void | Promise<void>): void;
  /**
   * This server's public origin (`https://svc.example.com`, no trailing slash), for links, issuers
   * and audiences: SVC_PUBLIC_URL, else the address the REST or MCP request came to. Outside any
   * request (a job, stdio) without SVC_PUBLIC_URL, reading it throws `provider_not_configured`
   * naming SVC_PUBLIC_URL.
   */
  readonly origin: string;
  /**
   * The HTTP request of a REST call (cookies, headers for pages and OAuth endpoints); undefined for
   * tools, agents and jobs. `origin`: as ctx.origin. `clientIp`: the client's address (the peer,
   * or behind trusted proxies the rightmost X-Forwarded-For entry that is not one; see
   * core/net/site.ts), undefined when the server does not know it.
   */
  http?: { request: Request; readonly origin: string; readonly clientIp?: string };
  /**
   * The MCP client behind a tools/call of an action declaring `interactive` (undefined otherwise:
   * REST, agents, jobs, other actions). What it sends travels on the call's own SSE stream, before
   * the result (see McpClient).
   */
  mcp?: McpClient;
}

export type { McpApps, McpClient, McpPromptContent, McpPromptDef, McpResourceDef } from './mcp-types';
export type { JobObject } from './job-object';
export type { AuthKind, Authenticated, Authenticator, HttpMethod, RestMapping } from './rest-mapping';

export interface CallOptions {
  /**
   * The input field of the calling action a not-found answers names: the callee's 404 names its
   * own field (`id`), the caller's client sent `product_id`.
   */
  notFoundParam?: string;
}

/**
 * The output type of every action another plugin may `ctx.call`, by `'plugin.action'`. Empty here:
 * a plugin fills in its own actions by augmenting it from its index.ts
 * (`declare module '../../core/sdk' { interface CallableActions extends ActionsOf<'reviews', typeof plugin> {} }`).
 */
export interface CallableActions {}

/** `'plugin.action'` -> the action's output type, for CallableActions. */
export type ActionsOf<N extends string, P extends { actions: Record<string, ActionDef<any, any>> }> = {
  [A in keyof P['actions'] & string as `${N}.${A}`]: Static<P['actions'][A]['output']>;
};

/** What a caller (REST, MCP, jobs) hands to invoke: invoke adds the plugin-bound parts. */
export type CallerCtx = Omit<Ctx, 'emit' | 'call' | 'enqueue' | 'startJob' | 'afterCommit' | 'config' | 'log' | 'shutdown' | 'origin'> & {
  log?: Logger;
  /** The origin of a request that is not REST's (an MCP connection's, an agent chat's): ctx.origin's second choice. */
  origin?: string;
  shutdown?: AbortSignal;
  /** Set by invoke for nested calls: after-commit work joins the outermost call's list. */
  afterCommitQueue?: (() => void | Promise<void>)[];
  /** Set by ctx.call: the plugin making the call, which runs as that plugin when it `requires` the callee. */
  callingPlugin?: string;
  /**
   * Written in the change's own transaction, after the handler succeeded (the tool-call path's
   * audit record): it exists exactly when the change does, for no extra round trip.
   */
  withChange?: (tx: Db, result: unknown) => Promise<void>;
};

export interface ActionDef<I extends TSchema = TSchema, O extends TSchema = TSchema, C = any> {
  kind: ActionKind;
  /** For the model and the docs: what it does and when to use it. */
  description: string;
  input: I;
  output: O;
  rest?: RestMapping;
  /** Event types this action may emit with ctx.emit: the plugin's own `events`, or another's. */
  emits?: string[];
  /** Error codes (from the error table) this action may answer; OpenAPI lists them. */
  errors?: string[];
  /**
   * The write handler runs exactly one SQL statement, which PostgreSQL applies atomically, so
   * invoke need not wrap it in a transaction (two round trips saved on the hottest writes).
   * When the store subscribes to one of its `emits`, invoke runs it in a transaction after all.
   */
  atomic?: boolean;
  /** REST only, never a tool for agents or MCP clients (decisions a human must make). */
  humanOnly?: boolean;
  /**
   * The scopes a user's token needs for this action instead of the plugin's (a decision only some
   * roles make: approving a held call takes `approvals:write`, which owner, admin and approver
   * hold). So the token's operations list what the role may really do. API keys keep the plugin's.
   */
  userScopes?: string[];
  /**
   * Reached only by other plugins' `ctx.call` (no `rest`, never a tool): a step of another plugin's
   * action that needs this plugin's tables (locations' delete asks inventory to vacate the location).
   */
  internal?: boolean;
  /**
   * The action starts long work and answers its job (`return ctx.startJob('reindex', input)`, output
   * `JobStarted`, REST status 202). Its tool gains `get_job` and `cancel_job`, derived by the kit.
   */
  startsJob?: boolean;
  /**
   * The handler waits on something outside svc and writes nothing itself: REST never runs it in a
   * transaction; under an Idempotency-Key its answer is recorded when it ends (a claim with a lease,
   * core/http/idempotent-stream.ts) and a repeat replays it instead of calling out again (a raw
   * answer, such as a screenshot, is not kept and runs again).
   */
  external?: boolean;
  /**
   * The handler talks to the MCP client mid-call through `ctx.mcp` (logs, progress, sampling,
   * elicitation). Over MCP such a call is answered on an SSE stream, which carries those messages
   * before the result; every other call keeps its plain JSON answer.
   */
  interactive?: boolean;
  /**
   * A valid input for this action (path parameters included), so the convention sweeps
   * (test/contract) can call it for real in two stores: BOLA, idempotency, output schemas. A plain
   * object, or a function that first makes what the input refers to (see ExampleKit). Without one,
   * the sweeps derive it: each `:param` of the path is the id of a resource made by the plugin's
   * POST route at the path before it (`/notes/:id` <- POST `/notes`), and the body is empty.
   * `noExample(reason)` says why none can be given; the sweeps print it instead of failing.
   */
  example?: ActionExample<Static<I>>;
  handler: (ctx: Ctx<C>, input: Static<I>) => Promise<Static<O>>;
}

/**
 * What an example may use: `make('products.create_product', over?)` runs that action with its
 * own example (fields of `over` replacing its fields) in the same store and returns the output;
 * `ctx` is the store's caller, for a resource no action makes (a held tool execution).
 */
export interface ExampleKit {
  make<T = any>(target: string, over?: Record<string, unknown>): Promise<T>;
  ctx: CallerCtx;
}

const NO_EXAMPLE = Symbol('no example');
export interface NoExample {
  readonly [NO_EXAMPLE]: string;
}
export type ActionExample<I = Record<string, unknown>> = Partial<I> | ((kit: ExampleKit) => Promise<Partial<I>>) | NoExample;
/** An action no example can reach, with the reason (printed by the sweeps). */
export const noExample = (reason: string): NoExample => ({ [NO_EXAMPLE]: reason });
/** The reason an action declared `noExample`, if it did. */
export const noExampleReason = (e: unknown): string | undefined =>
  e && typeof e === 'object' && NO_EXAMPLE in e ? (e as NoExample)[NO_EXAMPLE] : undefined;
export interface PluginDef {
  /** The one canonical id: REST segment, MCP tool name, audit `tool`, table prefix. */
  name: string;
  category: 'commerce' | 'intelligence' | 'marketing' | 'content' | 'platform' | 'operations';
  /** One sentence for AI clients choosing a tool (MCP, agents). */
  description?: string;
  /** The noun of one resource, for messages ("No such product: ..."); defaults to the name. */
  resource?: string;
  /** Part of SPEC 4.10's tool catalog (its action names are fixed by the SPEC). */
  catalog?: boolean;
  /** A tool for agents and MCP clients at all (false: REST only, like the operator API). Default true. */
  tool?: boolean;
  /**
   * Its bare scopes are a key's scopes although it is not a tool (`checkout`: the scope an
   * agent's key holds to reach the agentic endpoints and nothing else). Default false.
   */
  keyScopes?: boolean;
  /** Accepted scopes (SPEC 5.4): one of `read` for read actions, one of `write` for the others. */
  scopes: { read: string[]; write: string[] };
  /** Event types this plugin emits, with their payload schema (webhooks, OpenAPI). */
  events?: Record<string, TSchema>;
  /** Configuration schema; each field is read from `SVC_<PLUGIN>_<FIELD>` (or the field's `env`), validated at boot. */
  config?: TObject;
  /** This plugin's own error codes (`defineErrors`), added to the table. */
  errors?: Record<string, ErrorDef>;
  actions: Record<string, ActionDef<any, any>>;
  migrations?: Migration[];
  /**
   * Plugins whose public.ts this plugin imports (the only file of another plugin it may import).
   * They must be registered too, and their migrations run before this plugin's.
   */
  requires?: string[];
  /**
   * Plugins whose actions this one runs with ctx.call as part of its own actions, as itself (see
   * Ctx.call), without importing them: for a plugin it cannot `requires` (that one requires it).
   * `requires` implies it.
   */
  calls?: string[];
  /**
   * The tables this plugin's migrations create, which it alone reads and writes: SQL of another
   * plugin naming one of them fails test/contract/imports.test.ts. Others reach the data through
   * this plugin's public.ts (its existence check, `productsIn`) or ctx.call.
   */
  tables?: string[];
  /**
   * Background jobs by name (`job({...})`), run by `svc serve --role worker|all` on the queue
   * `<plugin>.<name>`; queued with ctx.enqueue or ctx.startJob, or by `cron`.
   */
  jobs?: Record<string, JobSpec<any>>;
  /**
   * Reactions to events any plugin declares (`'order.paid': (ctx, event) => ...`): each runs as a
   * job once the emitting change committed, as this plugin, in the event's store, in a
   * transaction; at least once, applied once per (event, plugin). Events of a type some plugin
   * reacts to are stored for every store.
   */
  on?: Reactions;
  /**
   * The reaction to the types this plugin subscribes to at run time, per store
   * (`setEventSubscriptions`: a workflow's event trigger). Such events are stored only for the
   * stores that subscribe; `on['*']`, by contrast, hears every type in every store.
   */
  onSubscribed?: Reaction;
  /**
   * Runs once when `svc serve` has started (any role): long-lived listeners of this plugin (a DNS
   * or SMTP server) and start-up warnings about missing settings. What it returns is stopped at
   * shutdown, before the database closes.
   */
  start?: (deps: JobDeps & { role: 'api' | 'worker' | 'all'; print: (line: string) => void }) => Promise<{ stop(): unknown } | void>;
  /**
   * Columns of this plugin's tables that keep copies of other resources' data as JSON (an agent's
   * conversation turns hold tool results): erasing a person (`scrubPersonalData`) scrubs them too,
   * like the core's own copies. Each table has `store_id`; `key` is its primary key (default `id`).
   */
  personalData?: PersonalDataColumn[];
  /**
   * MCP Apps (`io.modelcontextprotocol/ui`): views this plugin serves to MCP clients that declare
   * the extension, the tools whose results they render, and tools only such clients get. Other
   * clients see none of it.
   */
  mcpApps?: McpApps;
  /**
   * MCP resources (fixed URIs and templates) and prompts this plugin serves beside svc's own, to
   * credentials holding its read scope (core/mcp/plugin-content.ts).
   */
  mcpContent?: { resources?: McpResourceDef[]; prompts?: McpPromptDef[] };
  /**
   * New kinds of credential this plugin brings (users' access tokens): makeServices adds them to
   * Services.authenticators, after the admin token and before API keys, so every surface (REST,
   * MCP, agent chat) accepts them without the core knowing the plugin.
   */
  authenticators?: (deps: JobDeps) => Authenticator[];
  /**
   * Where the users' access tokens those authenticators take are issued (OAuth 2.0 authorization
   * code with PKCE): the API description offers the flow with these endpoints (paths on this server).
   */
  oauth?: { authorizationPath: string; tokenPath: string };
}

export interface JobDeps {
  db: Db;
  clock: Clock;
  registry: Registry;
  log: Logger;
  config: Record<string, any>;
}

/** What a job's handler gets: an action's ctx (store, call, log, clock, db, emit, enqueue), plus progress. */
export interface JobCtx extends Ctx {
  /** The job's id when a client follows it (started with ctx.startJob, or a reaction). */
  jobId?: string;
  /**
   * Records how far the job is (`GET STORE/jobs/{id}` shows it). Throws once the job was
   * cancelled, which ends the handler; `ctx.shutdown` is aborted then too, for long waits.
   */
  progress(done: number, total?: number): Promise<void>;
}

export interface JobSpec<I extends TSchema = TSchema> {
  /** What it does, for the logs and the jobs list. */
  description?: string;
  /** Its input, checked when queued and again when run (a bad one fails at once, never retried). */
  input: I;
  /** Cron schedule (once per cluster): runs with `{}` as input and no store (a sweep over every store). */
  cron?: string;
  /** Attempts after the first before it is failed (default 5), 5 s doubling up to 10 minutes apart. */
  retries?: number;
  /**
   * pg-boss's heartbeat: a job whose worker died (kill -9) is handed back once this many seconds
   * pass without a beat, instead of after pg-boss's 15-minute expiry. For short jobs that must resume.
   */
  heartbeatSeconds?: number;
  /**
   * One input. Runs outside a transaction (long work, outside calls): ctx.db is the database, and
   * what must commit together goes in `ctx.db.transaction`. A throw retries it.
   */
  handler?: (ctx: JobCtx, input: Static<I>) => Promise<unknown>;
  /**
   * Instead of `handler`: many inputs at once (up to 50, from every store: ctx has no store), for
   * high-rate internal work such as deliveries. A throw retries the whole batch.
   */
  batch?: (ctx: JobCtx, inputs: Static<I>[]) => Promise<void>;
}

/** A job of a plugin's declaration: `jobs: { reindex: job({ input, handler }) }`. */
export const job = <I extends TSchema>(j: JobSpec<I>): JobSpec<I> => j;

/**
 * Every event type's payload, by type, for typed reactions. Empty here: a plugin that emits
 * events fills in its own from its index.ts
 * (`declare module '../../core/sdk' { interface DeclaredEvents extends EventsOf<typeof orders> {} }`).
 */
export interface DeclaredEvents {}

/** A plugin's `events` as `type -> payload type`, for DeclaredEvents. */
export type EventsOf<P extends { events?: Record<string, TSchema> }> = {
  [T in keyof NonNullable<P['events']> & string]: Static<NonNullable<P['events']>[T]>;
};

/** The event a reaction gets: as a webhook receives it (SPEC 6.1). */
export interface ReactionEvent<D = any> {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  data: D;
  /** What caused it, when the writer said so (`withEventCause`): a workflow run's chain depth. */
  cause?: Record<string, unknown>;
}

/** Who caused the event and in which request (null for events written before this was kept). */
export type Reaction<D = any> = (ctx: JobCtx, event: ReactionEvent<D>, origin: EventOrigin) => Promise<void>;

/** `on` of a declaration: typed payloads for declared types, any other registered type as `any`. */
export type Reactions = { [T in keyof DeclaredEvents]?: Reaction<DeclaredEvents[T]> } & { [type: string]: Reaction | undefined };
export const definePlugin = <P extends PluginDef>(p: P): P => p;
export const action = <I extends TSchema, O extends TSchema>(a: ActionDef<I, O>): ActionDef<I, O> => a;
/**
 * `action` for a plugin with settings: `const action = actionFor(UsersConfig)` types its handlers'
 * `ctx.config` as `Static<typeof UsersConfig>`.
 */
export const actionFor =
  <S extends TObject>(_config: S) =>
  <I extends TSchema, O extends TSchema>(a: ActionDef<I, O, Static<S>>): ActionDef<I, O, Static<S>> =>
    a;

/**
 * Whether an action is offered to agents and MCP clients: a store credential's action (not the
 * operator's or the public's), not REST-only, not a raw answer unless it says how (`asTool`).
 */
export const isTool = (plugin: PluginDef, a: ActionDef) =>
  plugin.tool !== false &&
  !a.humanOnly &&
  !a.internal &&
  (a.rest?.response !== 'raw' || !!a.rest.asTool) &&
  (a.rest?.auth ?? 'api_key') !== 'admin' &&
  a.rest?.auth !== 'public';

/** The scopes that allow an action of this kind. */
export function acceptedScopes(plugin: PluginDef, kind: ActionKind): string[] {
  return kind === 'read' ? plugin.scopes.read : plugin.scopes.write;
}

/** The scopes that allow `action` to a principal of this kind: a user's token may be held to the action's userScopes. */
export const scopesFor = (plugin: PluginDef, action: ActionDef, principal: Principal['kind']): string[] =>
  (principal === 'user' && action.userScopes) || acceptedScopes(plugin, action.kind);

/** One action, found by its flat tool name (`products_get_product`). */
export interface ActionRef {
  plugin: PluginDef;
  actionName: string;
  action: ActionDef;
}

/**
 * The plugins of one process, composed once at boot (core/cli.ts) or by a test, and handed to
 * everything that needs them: HTTP routes, MCP, agents, jobs, key scopes, webhook event types.
 * Every lookup is a map; every declaration is checked here, so a bad plugin fails boot with a
 * message naming it rather than misbehaving later.
 */
export interface Registry {
  plugins: readonly PluginDef[];
  byName: ReadonlyMap<string, PluginDef>;
  byFlatName: ReadonlyMap<string, ActionRef>;
  /** Every `resource:action` scope a credential may hold (SPEC 5.1 plus the plugins'): a new store's first key holds them all. */
  scopes: readonly string[];
  /**
   * What a key may be given: `scopes` plus the bare names tools accept (a bare `products` grants
   * read and write). Anything else would make a key refused everywhere, so it is refused at creation.
   */
  grantable: readonly string[];
  /** Every event type an endpoint may subscribe to, with its payload schema. */
  events: ReadonlyMap<string, TSchema>;
  /** Event type -> the plugins reacting to it (`on`): such events are stored for every store. */
  reactions: ReadonlyMap<string, readonly string[]>;
  /** The plugins of SPEC 4.10's catalog, by name. */
  catalog: readonly string[];
  /** The noun of one of a plugin's resources, for messages. */
  noun(plugin: PluginDef): string;
  /** A plugin's configuration, read and checked at build (`config` in its declaration). */
  configOf(name: string): Record<string, any>;
  /** The server's own settings every plugin shares: public origin, trusted proxies (core/net/site.ts). */
  site: Site;
}

/** A plugin's column holding copies of data that may be personal (declared in `personalData`). */
export interface PersonalDataColumn {
  table: string;
  column: string;
  /** The row's primary key column (default `id`). The table has `store_id`. */
  key?: string;
}
