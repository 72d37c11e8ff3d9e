import type { Static, TSchema } from '@sinclair/typebox';
import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { Migration } from '../db/migrate';

export type ActionKind = 'read' | 'write' | 'destructive';
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Who is calling: today an API key scoped to one store. */
export interface Principal {
  kind: 'api_key';
  keyId: string;
  storeId: string;
  scopes: string[];
  livemode: boolean;
}

export interface Store {
  id: string;
  name: string;
  plan: 'free' | 'starter' | 'pro' | 'enterprise';
}

/** Everything a handler may use, passed explicitly. */
export interface Ctx {
  db: Db;
  store: Store;
  principal: Principal;
  clock: Clock;
  requestId: string;
  /** Base path of this store's REST resources, for `url` fields of lists. */
  storePath: string;
  /**
   * Records a domain event (SPEC 6.1) caused by this change: call it in the handler, with the
   * resource as the API returns it. invoke writes it in the same transaction, so it exists exactly
   * when the change commits. Only types the action declares in `emits` may be emitted.
   */
  emit(type: string, data: object): void;
  /**
   * Aborted when the server begins shutting down (SIGTERM). A handler whose answer outlives the
   * request (a stream) listens to it and ends with a final event within the grace period. Absent
   * where nothing shuts down (jobs, tool calls, tests).
   */
  shutdown?: AbortSignal;
}

/** What a caller (REST, MCP, jobs) hands to invoke: invoke adds `emit`. */
export type CallerCtx = Omit<Ctx, 'emit'>;

export interface RestMapping {
  method: HttpMethod;
  /** Relative to /v1/stores/:storeId, with `:name` path parameters that become input fields. */
  path: string;
  status?: number;
}

export interface ActionDef<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  kind: ActionKind;
  /** For the model and the docs: what it does and when to use it. */
  description: string;
  input: I;
  output: O;
  rest?: RestMapping;
  /** Event types this action may emit with ctx.emit (SPEC 6.1 names). */
  emits?: string[];
  /**
   * The write handler runs exactly one SQL statement, which PostgreSQL applies atomically, so
   * invoke need not wrap it in a transaction (two round trips saved on the hottest writes).
   * When the store subscribes to one of its `emits`, invoke runs it in a transaction after all,
   * so the event is written atomically with the change.
   */
  atomic?: boolean;
  /**
   * The handler returns a `Response` whose body streams (server-sent events: agent chat). A stream
   * outlives any transaction, so invoke runs the handler outside one (ctx.db is the shared db) and
   * the handler writes in its own short transactions, recording events with `recordEvents`
   * (ctx.emit is unavailable). REST hands the Response on with the convention headers; it is never
   * recorded for idempotent replay. Tool callers (MCP, agents) do not see such actions.
   */
  stream?: boolean;
  /**
   * REST only, never a tool for agents or MCP clients: decisions a human must make (approving a
   * gated call) and ways around the tool-call path (a tool's test run skips audit and approval).
   */
  humanOnly?: boolean;
  /**
   * The handler waits on something outside svc (a custom tool's endpoint or sandbox) and writes
   * nothing itself: REST never runs it inside a transaction, and ignores an Idempotency-Key
   * (there is nothing to duplicate; a repeat runs again), so a slow call never holds the database.
   */
  external?: boolean;
  handler: (ctx: Ctx, input: Static<I>) => Promise<Static<O>>;
}

export interface PluginDef {
  /** The one canonical id: REST segment, MCP tool name, audit `tool`, table prefix. */
  name: string;
  category: 'commerce' | 'intelligence' | 'marketing' | 'content' | 'platform' | 'operations';
  /** One sentence for AI clients choosing a tool (MCP, agents). */
  description?: string;
  /** Accepted scopes (SPEC 5.4): one of `read` for read actions, one of `write` for the others. */
  scopes: { read: string[]; write: string[] };
  actions: Record<string, ActionDef<any, any>>;
  migrations?: Migration[];
  /** Background jobs, run by `svc serve --role worker|all`; the queue is `<plugin>.<name>`. */
  jobs?: PluginJob[];
}

export interface PluginJob {
  name: string;
  /** Runs a batch of job payloads; a throw fails them and pg-boss retries them. */
  run: (deps: { db: Db; clock: Clock }, batch: unknown[]) => Promise<void>;
  /** Cron schedule (once per cluster), if the job is periodic. */
  cron?: string;
}

export const definePlugin = <P extends PluginDef>(p: P): P => p;
export const action = <I extends TSchema, O extends TSchema>(a: ActionDef<I, O>): ActionDef<I, O> => a;

/** The scopes that allow an action of this kind. */
export function acceptedScopes(plugin: PluginDef, kind: ActionKind): string[] {
  return kind === 'read' ? plugin.scopes.read : plugin.scopes.write;
}
