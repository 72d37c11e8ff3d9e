import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';

/**
 * Validation failures in words a person (or a model) can act on, derived from the schema:
 * "must be a UUID", "must be one of: pending, paid", "must be at most 200 characters long".
 * TypeBox's own messages print raw regular expressions and say "expected union value"; these go
 * to REST clients, MCP clients and agents alike, so they are written here once.
 *
 * A string schema with a `pattern` says what the pattern means with `errorMessage` (the ajv-errors
 * convention; TypeBox ignores the keyword): `Type.String({ pattern, errorMessage: 'must be a UUID' })`.
 * The contract test requires it on every pattern of an action input.
 */

type Schema = Record<string, any>;

/** One failure: the path (JSON pointer) of the offending value and what it must be. */
export interface Explained {
  path: string;
  /** "is required", or "must ..." */
  phrase: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The values a schema admits when it is a closed set (literals, enums, null), else undefined. */
function choices(s: Schema): unknown[] | undefined {
  if ('const' in s) return [s.const];
  if (Array.isArray(s.enum)) return s.enum;
  if (s.type === 'null') return [null];
  if (Array.isArray(s.anyOf)) {
    const all = s.anyOf.map(choices);
    return all.every(Boolean) ? all.flat() : undefined;
  }
  return undefined;
}

/** An errorMessage that names what the value is ("must be a UUID"), not a rule on its content. */
const describesKind = (s: Schema) => typeof s.errorMessage === 'string' && s.errorMessage.startsWith('must be ');

const show = (v: unknown) => (v === null ? 'null' : typeof v === 'string' ? v : JSON.stringify(v));

/** A type in words, for a union of unlike variants: "a string or null". */
function kind(s: Schema): string {
  if (describesKind(s)) return s.errorMessage.replace(/^must be /, '');
  const c = choices(s);
  if (c && c.length === 1) return show(c[0]);
  switch (s.type) {
    case 'string':
      return 'a string';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'null':
      return 'null';
  }
  return 'a valid value';
}

function fromUnion(e: ValueError): Explained {
  const s = e.schema as Schema;
  const closed = choices(s);
  if (closed) return { path: e.path, phrase: `must be one of: ${closed.map(show).join(', ')}` };
  // [X, null] and the like: when only one variant could have been meant, its own failure says more.
  const variants: Schema[] = s.anyOf ?? [];
  const candidates = variants.map((v, i) => ({ v, i })).filter(({ v }) => !(e.value !== null && v.type === 'null'));
  if (candidates.length === 1) {
    const sub = e.errors[candidates[0].i]?.First();
    if (sub) {
      const inner = explain(sub);
      const nullable = variants.some((v) => v.type === 'null');
      // Same value, another wording: say that null is also accepted.
      return inner.path === e.path && nullable ? { path: inner.path, phrase: `${inner.phrase} (or null)` } : inner;
    }
  }
  return { path: e.path, phrase: `must be ${variants.map(kind).join(' or ')}` };
}

/** The failure TypeBox reported, as a path and a phrase. */
export function explain(e: ValueError): Explained {
  const s = e.schema as Schema;
  const at = (phrase: string): Explained => ({ path: e.path, phrase });
  const T = ValueErrorType;
  switch (e.type) {
    case T.ObjectRequiredProperty:
      return at('is required');
    case T.Union:
      return fromUnion(e);
    case T.Literal:
      return at(`must be ${show(s.const)}`);
    case T.StringPattern:
    case T.StringFormat:
    case T.StringFormatUnknown:
      if (typeof s.errorMessage === 'string') return at(s.errorMessage);
      return at(s.pattern ? `must match the pattern ${s.pattern}` : `must be a valid ${s.format}`);
    case T.String:
      return at(describesKind(s) ? s.errorMessage : 'must be a string');
    case T.StringMinLength:
      return at(s.minLength === 1 ? 'must not be empty' : `must be at least ${plural(s.minLength, 'character')} long`);
    case T.StringMaxLength:
      return at(`must be at most ${plural(s.maxLength, 'character')} long`);
    case T.Number:
      return at('must be a number');
    case T.Integer:
      return at('must be an integer');
    case T.NumberMinimum:
    case T.IntegerMinimum:
      return at(`must be at least ${s.minimum}`);
    case T.NumberMaximum:
    case T.IntegerMaximum:
      return at(`must be at most ${s.maximum}`);
    case T.NumberExclusiveMinimum:
    case T.IntegerExclusiveMinimum:
      return at(`must be greater than ${s.exclusiveMinimum}`);
    case T.NumberExclusiveMaximum:
    case T.IntegerExclusiveMaximum:
      return at(`must be less than ${s.exclusiveMaximum}`);
    case T.NumberMultipleOf:
    case T.IntegerMultipleOf:
      return at(`must be a multiple of ${s.multipleOf}`);
    case T.Boolean:
      return at('must be true or false');
    case T.Null:
      return at('must be null');
    case T.Object:
      return at('must be an object');
    case T.Array:
      return at('must be an array');
    case T.ArrayMinItems:
      return at(`must have at least ${plural(s.minItems, 'item')}`);
    case T.ArrayMaxItems:
      return at(`must have at most ${plural(s.maxItems, 'item')}`);
    case T.ArrayUniqueItems:
      return at('must not contain duplicates');
    case T.ObjectMinProperties:
      return at(`must have at least ${plural(s.minProperties, 'key')}`);
    case T.ObjectMaxProperties:
      return at(`must have at most ${plural(s.maxProperties, 'key')}`);
  }
  // Anything rarer keeps TypeBox's wording, in its own case.
  return at(e.message.replace(/^Expected/, 'must be').replace(/\.$/, ''));
}
