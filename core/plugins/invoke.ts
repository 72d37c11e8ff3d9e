import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { errors } from '../errors';
import { acceptedScopes, type ActionDef, type Ctx, type PluginDef } from './contract';

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor(schema: TSchema) {
  let c = checkers.get(schema);
  if (!c) checkers.set(schema, (c = TypeCompiler.Compile(schema)));
  return c;
}

/** `/pricing_data/retail` -> `pricing_data.retail`; `/line_items/0/quantity` -> `line_items.0.quantity`. */
const pointerToParam = (path: string) => path.replace(/^\//, '').replaceAll('/', '.') || null;

/** Validates input against the action's schema; the first failure becomes a 400 naming the field. */
export function validateInput(schema: TSchema, input: unknown): void {
  const checker = checkerFor(schema);
  if (checker.Check(input)) return;
  const first = checker.Errors(input).First();
  if (!first) throw errors.validation('Invalid request.');
  const param = pointerToParam(first.path);
  // A schema with additionalProperties: false reports unknown fields at their own path.
  const message = first.message.startsWith('Unexpected property')
    ? `Received unknown parameter: ${param}.`
    : param
      ? `Invalid ${param}: ${first.message.toLowerCase()}.`
      : `Invalid request: ${first.message.toLowerCase()}.`;
  throw errors.validation(message, param);
}

export function hasScope(granted: string[], accepted: string[]): boolean {
  return accepted.some((s) => granted.includes(s));
}

/**
 * The one choke point every caller (REST, MCP, agents, jobs) goes through:
 * check scope, validate input, run the handler with an explicit ctx.
 */
export async function invoke(plugin: PluginDef, action: ActionDef, ctx: Ctx, input: unknown): Promise<unknown> {
  const accepted = acceptedScopes(plugin, action.kind);
  if (!hasScope(ctx.principal.scopes, accepted)) throw errors.scope(accepted);
  validateInput(action.input, input);
  if (action.kind === 'read') return action.handler(ctx, input as any);
  // A write happens whole or not at all, whoever calls it (inside a caller's transaction this reuses it).
  return ctx.db.transaction((tx) => action.handler({ ...ctx, db: tx }, input as any));
}
