import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { errors } from '../errors';
import { explain } from './messages';
import { acceptedScopes, type ActionDef, type CallerCtx, type Ctx, type PluginDef } from './contract';
import { subscribedTypes } from '../events/subscriptions';
import { writeEvents } from '../events/outbox';
import type { PendingEvent } from '../events/types';

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor(schema: TSchema) {
  let c = checkers.get(schema);
  if (!c) checkers.set(schema, (c = TypeCompiler.Compile(schema)));
  return c;
}

/**
 * A JSON pointer as a param name: `/pricing_data/retail` -> `pricing_data.retail`,
 * `/line_items/0/quantity` -> `line_items.0.quantity`; the root is null. Segments are unescaped
 * (`~1` is `/`, `~0` is `~`), so a field is named as it was sent.
 */
const pointerToParam = (path: string) =>
  path === '' ? null : path.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');

// PostgreSQL text and jsonb cannot hold U+0000, and a lone UTF-16 surrogate is not text at all.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (value or key) the database cannot store, if any. */
function unstorable(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return path; // name the object: the key itself cannot be shown
      const found = unstorable(v, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Validates input against the action's schema; the first failure becomes a 400 naming the field. */
export function validateInput(schema: TSchema, input: unknown): void {
  const checker = checkerFor(schema);
  if (checker.Check(input)) {
    const bad = unstorable(input);
    if (bad) throw errors.validation(`Invalid ${bad.join('.')}: text may not contain NUL characters or unpaired surrogates.`, bad.join('.'));
    return;
  }
  const first = checker.Errors(input).First();
  if (!first) throw errors.validation('Invalid request.');
  // A schema with additionalProperties: false reports unknown fields at their own path.
  if (first.type === ValueErrorType.ObjectAdditionalProperties || first.message.startsWith('Unexpected property')) {
    const param = pointerToParam(first.path);
    throw errors.validation(`Received unknown parameter: ${param}.`, param);
  }
  const { path, phrase } = explain(first);
  const param = pointerToParam(path);
  const message = !param ? `Invalid request: ${phrase}.` : phrase === 'is required' ? `Missing required parameter: ${param}.` : `Invalid ${param}: ${phrase}.`;
  throw errors.validation(message, param);
}

export function hasScope(granted: string[], accepted: string[]): boolean {
  return accepted.some((s) => granted.includes(s));
}

const streamsRecordTheirOwn = (type: string) => {
  throw new Error(`a streaming action records '${type}' with recordEvents in its own transaction`);
};
const NONE: ReadonlySet<string> = new Set();
const readsDoNotEmit = (type: string) => {
  throw new Error(`a read action cannot emit '${type}'`);
};

/**
 * ctx.emit for one action call: refuses undeclared types (a declaration that lies would break the
 * atomic decision below and the docs), keeps only types the store subscribes to (the rest are not
 * stored at all), and holds them until the transaction writes them.
 */
function collector(plugin: PluginDef, action: ActionDef, subscribed: ReadonlySet<string>, ctx: CallerCtx) {
  const pending: PendingEvent[] = [];
  const emit = (type: string, data: object) => {
    if (!action.emits?.includes(type)) throw new Error(`${plugin.name}: emit('${type}') is not declared in the action's emits`);
    if (subscribed.has(type)) pending.push({ type, data, at: ctx.clock.now() });
  };
  return { pending, emit };
}

/**
 * The one choke point every caller (REST, MCP, agents, jobs) goes through:
 * check scope, validate input, run the handler with an explicit ctx; a write runs in one
 * transaction together with the events it emitted.
 */
export async function invoke(plugin: PluginDef, action: ActionDef, ctx: CallerCtx, input: unknown): Promise<unknown> {
  const accepted = acceptedScopes(plugin, action.kind);
  if (!hasScope(ctx.principal.scopes, accepted)) throw errors.scope(accepted);
  validateInput(action.input, input);
  if (action.stream) return action.handler({ ...ctx, emit: streamsRecordTheirOwn }, input as any);
  // Reads change nothing, so they emit nothing: the hot path skips the event machinery.
  if (action.kind === 'read') return action.handler({ ...ctx, emit: readsDoNotEmit }, input as any);
  const subscribed = action.emits?.length ? await subscribedTypes(ctx.db, ctx.store.id) : NONE;
  const events = collector(plugin, action, subscribed, ctx);
  const run = (c: Ctx) => action.handler(c, input as any);
  // An atomic (one-statement) write stays outside a transaction unless one of its events must be
  // written with it; so does an external action (it writes nothing and waits on the outside world).
  if ((action.atomic || action.external) && !action.emits?.some((t) => subscribed.has(t))) return run({ ...ctx, emit: events.emit });
  // A write happens whole or not at all, whoever calls it (inside a caller's transaction this reuses it).
  return ctx.db.transaction(async (tx) => {
    const out = await run({ ...ctx, db: tx, emit: events.emit });
    if (events.pending.length) await writeEvents(tx, ctx.store.id, events.pending.splice(0));
    return out;
  });
}
