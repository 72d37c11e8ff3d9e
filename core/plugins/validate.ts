import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { errors } from '../errors';
import { explain } from './messages';
import { conditionalFailure } from './conditional';
import './formats';

/*
 * Input validation for every action call (core/plugins/invoke.ts) and every queued job: the
 * schema's compiled checker, then what TypeBox does not check (text the database cannot store,
 * if/then rules), and on a failure the one 400 a client hears, naming the field it sent wrong.
 */

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The schema's compiled checker, compiled once per schema. */
export function checkerFor(schema: TSchema) {
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
  path === ''
    ? null
    : path
        .slice(1)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
        .join('.');

// PostgreSQL text and jsonb cannot hold U+0000, and a lone UTF-16 surrogate is not text at all.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The path of the first string (value or key) the database cannot store, if any. Every input is
 * walked, so the walk allocates nothing until it finds one: the path is built on the way back.
 */
function unstorable(value: unknown): string[] | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? [] : undefined;
  if (value && typeof value === 'object') {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (UNSTORABLE.test(k)) return []; // name the object: the key itself cannot be shown
      const found = unstorable((value as Record<string, unknown>)[k]);
      if (found) return [k, ...found];
    }
  }
  return undefined;
}

/**
 * Where a field sits in the input, level by level: its position among the keys as they were sent
 * (JSON text order). A field that is not there (a required one missing) comes after every field
 * that is, so the error names what the client sent wrong before what it left out.
 */
function documentRank(input: unknown, path: string): number[] {
  const rank: number[] = [];
  let node: any = input;
  for (const raw of path === '' ? [] : path.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const at = node && typeof node === 'object' ? Object.keys(node).indexOf(key) : -1;
    rank.push(at < 0 ? Number.MAX_SAFE_INTEGER : at);
    if (at < 0) break;
    node = node[key];
  }
  return rank;
}

const before = (a: number[], b: number[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i];
  return a.length < b.length;
};

/**
 * The error a client should hear first: the one on the earliest field of its document, whatever
 * order the schema declares them in, so every route and tool names the same field for the same
 * mistake (a wrong sku, not a missing options declared before it). Only runs on a failure.
 */
function firstInDocumentOrder(found: Iterable<ValueError>, input: unknown): ValueError | undefined {
  let best: ValueError | undefined;
  let bestRank: number[] = [];
  let seen = 0;
  for (const e of found) {
    const rank = documentRank(input, e.path);
    if (!best || before(rank, bestRank)) [best, bestRank] = [e, rank];
    if (++seen >= 100) break; // a huge invalid document need not be walked whole
  }
  return best;
}

/** Validates input against the action's schema; the first failure becomes a 400 naming the field. */
export function validateInput(schema: TSchema, input: unknown): void {
  const checker = checkerFor(schema);
  if (checker.Check(input)) {
    const bad = unstorable(input);
    if (bad) throw errors.validation(`Invalid ${bad.join('.')}: text may not contain NUL characters or unpaired surrogates.`, bad.join('.'));
    // if/then rules (TypeBox does not evaluate them), checked from the same schema.
    const unmet = conditionalFailure(schema, input);
    if (unmet) throw errors.validation(unmet.message, unmet.param);
    return;
  }
  const first = firstInDocumentOrder(checker.Errors(input), input);
  if (!first) throw errors.validation('Invalid request.');
  // A schema with additionalProperties: false reports unknown fields at their own path.
  if (first.type === ValueErrorType.ObjectAdditionalProperties || first.message.startsWith('Unexpected property')) {
    const param = pointerToParam(first.path);
    throw errors.validation(`Received unknown parameter: ${param}.`, param);
  }
  const { path, phrase } = explain(first);
  const param = pointerToParam(path);
  const message = !param
    ? `Invalid request: ${phrase}.`
    : phrase === 'is required'
      ? `Missing required parameter: ${param}.`
      : `Invalid ${param}: ${phrase}.`;
  throw errors.validation(message, param);
}
