/**
 * fast-check arbitraries from JSON Schema (TypeBox schemas are JSON Schema): `valid(schema)` makes
 * values the schema accepts, `invalid(schema)` values it refuses (a wrong type, a bound crossed, a
 * required field dropped, an unknown field, text the database cannot store), and `mixed` both, for
 * the fuzz sweep. Covers what plugin inputs use: object (properties, required,
 * additionalProperties, patternProperties), string (pattern, format, minLength, maxLength), number,
 * integer, boolean, null, array (minItems, maxItems, uniqueItems), anyOf (unions, optional
 * nullables), allOf, const (literals), enum, and the empty schema (unknown).
 */
import fc, { type Arbitrary } from 'fast-check';

type Schema = Record<string, any>;

export interface ArbOptions {
  /** Ids of resources that exist: uuid-shaped strings are often one of them, so calls reach the handler. */
  ids?: string[];
}

const SAMPLE_UUID = '123e4567-e89b-42d3-a456-426614174000';
const LONG = 60; // generated text stays short unless a bound is being tested

/** A pattern that accepts uuids and little else: the `Uuid()` schema, however it is spelt. */
function isUuidPattern(pattern: string) {
  try {
    const re = new RegExp(pattern);
    return re.test(SAMPLE_UUID) && !re.test('abcdefgh') && !re.test('');
  } catch {
    return false;
  }
}

const idArb = (opts: ArbOptions): Arbitrary<string> =>
  opts.ids?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...opts.ids) }, { weight: 1, arbitrary: fc.uuid() }) : fc.uuid();

/** Any JSON value of another type than the schema's: the commonest client mistake. */
const otherType = (type: string | undefined): Arbitrary<unknown> => {
  const all: Record<string, Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 8 }),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }),
    integer: fc.integer(),
    boolean: fc.boolean(),
    null: fc.constant(null),
    array: fc.array(fc.integer(), { maxLength: 3 }),
    object: fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  };
  const numeric = type === 'number' || type === 'integer';
  return fc.oneof(
    ...Object.entries(all)
      .filter(([t]) => t !== type && !(numeric && (t === 'number' || t === 'integer')))
      .map(([, a]) => a),
  );
};

/**
 * `arb` filtered by `keep`, when that is cheap: if few of its values pass, filtering could loop for
 * ever, so `arb` is used as it is (some values are then refused: still good fuzz input).
 */
function filtered<T>(arb: Arbitrary<T>, keep: (v: T) => boolean): Arbitrary<T> {
  const sample = fc.sample(arb, { numRuns: 40, seed: 7 });
  return sample.filter(keep).length >= 4 ? arb.filter(keep) : arb;
}

function stringValid(s: Schema, opts: ArbOptions): Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const fits = (v: string) => v.length >= min && v.length <= max;
  if (s.format === 'uuid' || (s.pattern && isUuidPattern(s.pattern))) return idArb(opts);
  if (s.format === 'email') return filtered(fc.emailAddress(), fits);
  if (s.format === 'date-time')
    return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  // A uri may also have a pattern (WebUrl's https only): both hold.
  if (s.format === 'uri') return filtered(fc.webUrl(), (v) => fits(v) && (!s.pattern || new RegExp(s.pattern).test(v)));
  if (s.pattern) {
    try {
      const re = new RegExp(s.pattern);
      const one = fc.stringMatching(re);
      // Joined matches reach a minLength that single matches rarely do (`^[!-~]+$` with 16 at least).
      // Cut to maxLength, they still match a repeated character class and fit a narrow window.
      const joined = fc.array(one, { minLength: 2, maxLength: 8 }).map((parts) => parts.join('').slice(0, Number.isFinite(max) ? max : undefined));
      return filtered(fc.oneof(one, joined), (v) => fits(v) && re.test(v));
    } catch {
      // A pattern fast-check cannot generate from: plain text, mostly refused, still a fuzz input.
    }
  }
  const upTo = Math.min(max, min + LONG);
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: upTo }) },
    // Unicode: a grapheme may be several UTF-16 units, which is what maxLength counts.
    { weight: 1, arbitrary: filtered(fc.string({ unit: 'grapheme', minLength: min, maxLength: upTo }), fits) },
  );
  // The longest text the bound allows, now and then: off-by-one limits in the database live there.
  return Number.isFinite(max) && max <= 100_000
    ? fc.oneof({ weight: 6, arbitrary: text }, { weight: 1, arbitrary: fc.constant('é'.repeat(max)) })
    : text;
}

const MISMATCH_CANDIDATES = [
  '',
  ' ',
  'x',
  'X',
  '0',
  '-',
  '!',
  'é',
  '\u0000',
  'a b',
  'A-',
  '+1',
  'abc',
  'ABC',
  '12',
  '__',
  'a/b',
  '../',
  '\n',
  'a--b',
  'not-an-id',
  '00000000-0000-0000-0000-00000000000g',
];

function stringInvalid(s: Schema): Arbitrary<unknown> {
  const options: Arbitrary<unknown>[] = [
    otherType('string'),
    // Text PostgreSQL cannot store: a NUL, a lone surrogate.
    fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom('\u0000', '\ud800', '\udfff')).map(([a, b]) => `${a}${b}`),
  ];
  if (s.minLength) options.push(fc.constant('x'.repeat(s.minLength - 1)));
  if (s.maxLength !== undefined && s.maxLength <= 200_000) options.push(fc.constant('x'.repeat(s.maxLength + 1)));
  if (s.pattern) {
    // Picked from fixed candidates: filtering random text for a mismatch can loop for ever (a
    // pattern refusing only NUL is matched by nearly every string).
    const re = new RegExp(s.pattern);
    const misses = MISMATCH_CANDIDATES.filter((v) => !re.test(v));
    if (misses.length) options.push(fc.constantFrom(...misses));
  }
  return fc.oneof(...options);
}

function numberValid(s: Schema): Arbitrary<number> {
  const int = s.type === 'integer';
  const min = Math.max(s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (int ? 1 : 1e-9) : -1e12), Number.MIN_SAFE_INTEGER);
  const max = Math.min(s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (int ? 1 : 1e-9) : 1e12), Number.MAX_SAFE_INTEGER);
  const whole = fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31))), max: Math.floor(Math.min(max, 2 ** 31 - 1)) });
  const bounds = fc.constantFrom(...[min, max].filter((n) => !int || Number.isInteger(n)).map((n) => (int ? n : n)));
  const arbs: Arbitrary<number>[] = [whole, bounds];
  if (!int) arbs.push(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)));
  return fc.oneof(...arbs);
}

function numberInvalid(s: Schema): Arbitrary<unknown> {
  const options: Arbitrary<unknown>[] = [otherType(s.type), fc.constantFrom('1', '1e3', '', 1e308, -1e308)];
  if (s.type === 'integer') options.push(fc.double({ noNaN: true, noDefaultInfinity: true, noInteger: true }));
  if (s.minimum !== undefined) options.push(fc.constant(s.minimum - 1));
  if (s.maximum !== undefined) options.push(fc.constant(s.maximum + 1));
  return fc.oneof(...options);
}

function arrayValid(s: Schema, opts: ArbOptions): Arbitrary<unknown[]> {
  const item = s.items ? valid(s.items, opts) : fc.jsonValue({ maxDepth: 1 });
  const minLength = s.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 5, minLength + 5));
  return s.uniqueItems
    ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
    : fc.array(item, { minLength, maxLength });
}

function arrayInvalid(s: Schema, opts: ArbOptions): Arbitrary<unknown> {
  const options: Arbitrary<unknown>[] = [otherType('array')];
  if (s.items) options.push(fc.tuple(arrayValid(s, opts), invalid(s.items, opts)).map(([a, bad]) => [...a, bad]));
  if (s.minItems) options.push(fc.constant([]));
  if (s.maxItems !== undefined && s.items && s.maxItems <= 1000)
    options.push(fc.array(valid(s.items, opts), { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }));
  return fc.oneof(...options);
}

/** Record-like parts of an object schema: patternProperties, and additionalProperties given as a schema. */
function extraProps(s: Schema, opts: ArbOptions): Arbitrary<Record<string, unknown>> | undefined {
  const maxKeys = Math.max(Math.min(s.maxProperties ?? 4, 4), s.minProperties ?? 0);
  const minKeys = s.minProperties ?? 0;
  const [pattern, valueSchema] = Object.entries<Schema>(s.patternProperties ?? {})[0] ?? [];
  if (pattern) {
    const key =
      pattern === '^(.*)$' || pattern === '^.*$'
        ? fc.string({ minLength: 1, maxLength: 12 })
        : stringValid({ type: 'string', pattern, maxLength: 40 }, opts);
    return fc.dictionary(key, valid(valueSchema, opts), { minKeys, maxKeys });
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    return fc.dictionary(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,11}$/), valid(s.additionalProperties, opts), { minKeys, maxKeys });
  return undefined;
}

function objectValid(s: Schema, opts: ArbOptions): Arbitrary<Record<string, unknown>> {
  const props: Record<string, Schema> = s.properties ?? {};
  const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, p]) => [k, valid(p, opts)])), { requiredKeys: s.required ?? [] });
  const extra = extraProps(s, opts);
  // Plain objects: fc.record's have no prototype, which JSON does not care about but tests might.
  const plain = extra ? fc.tuple(extra, record).map(([e, r]) => ({ ...e, ...r })) : record.map((r) => ({ ...r }));
  return withConditions(s, plain, opts);
}

/**
 * The object's if/then conditions met: when an `if` holds, the fields its `then` requires are
 * added (the first of an anyOf of requirements) and the fields it forbids (`not: {}`) dropped.
 */
function withConditions(s: Schema, arb: Arbitrary<Record<string, unknown>>, opts: ArbOptions): Arbitrary<Record<string, unknown>> {
  const conditions: Schema[] = (s.allOf ?? []).filter((m: Schema) => m.if && m.then);
  if (!conditions.length) return arb;
  const props: Record<string, Schema> = s.properties ?? {};
  return arb.chain((value) => {
    const met = conditions.filter((c) => holds(c.if, value));
    const v = { ...value };
    for (const c of met) for (const [k, p] of Object.entries<Schema>(c.then.properties ?? {})) if (p.not && !Object.keys(p.not).length) delete v[k];
    const adds = met.map((c) => {
      const names: string[] = [...(c.then.required ?? []), ...(c.then.anyOf?.[0]?.required ?? [])].filter((k: string) => !(k in v));
      return fc.record(Object.fromEntries(names.map((k) => [k, valid({ ...props[k], ...(c.then.properties?.[k] ?? {}) }, opts)])));
    });
    return adds.length ? fc.tuple(...adds).map((parts) => Object.assign({ ...v }, ...parts)) : fc.constant(v);
  });
}

function objectInvalid(s: Schema, opts: ArbOptions): Arbitrary<unknown> {
  const props: Record<string, Schema> = s.properties ?? {};
  const names = Object.keys(props);
  const base = objectValid(s, opts);
  const options: Arbitrary<unknown>[] = [otherType('object')];
  const required: string[] = s.required ?? [];
  if (required.length)
    options.push(fc.tuple(base, fc.constantFrom(...required)).map(([o, k]) => Object.fromEntries(Object.entries(o).filter(([n]) => n !== k))));
  if (names.length)
    options.push(fc.constantFrom(...names).chain((k) => fc.tuple(base, invalid(props[k], opts)).map(([o, bad]) => ({ ...o, [k]: bad }))));
  if (s.additionalProperties === false && !s.patternProperties)
    options.push(
      fc
        .tuple(
          base,
          fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !names.includes(k) && k !== '__proto__'),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(([o, k, v]) => ({ ...o, [k]: v })),
    );
  return fc.oneof(...options);
}

/** Values `schema` accepts (best effort: a pattern fast-check cannot follow may yield refused text). */
export function valid(schema: Schema, opts: ArbOptions = {}): Arbitrary<unknown> {
  const s = schema ?? {};
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((m: Schema) => valid(m, opts)));
  if (Array.isArray(s.oneOf)) return fc.oneof(...s.oneOf.map((m: Schema) => valid(m, opts)));
  // An object's allOf holds its if/then conditions (objectValid meets them); elsewhere it is an intersection.
  if (Array.isArray(s.allOf) && !s.properties)
    return fc.tuple(...s.allOf.map((m: Schema) => valid(m, opts))).map((parts) => Object.assign({}, ...parts));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numberValid(s);
    case 'string':
      return stringValid(s, opts);
    case 'array':
      return arrayValid(s, opts);
    case 'object':
      return objectValid(s, opts);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values `schema` refuses (for a union, refused by the member it was made from; mostly by all). */
export function invalid(schema: Schema, opts: ArbOptions = {}): Arbitrary<unknown> {
  const s = schema ?? {};
  if (s.const !== undefined) return fc.oneof(fc.constant(typeof s.const === 'string' ? `${s.const}_x` : 'x'), otherType(typeof s.const));
  if (Array.isArray(s.enum))
    return fc.oneof(
      fc.string({ maxLength: 8 }).filter((v) => !s.enum.includes(v)),
      fc.integer(),
    );
  const members: Schema[] | undefined = s.anyOf ?? s.oneOf ?? (s.properties ? undefined : s.allOf);
  if (members) return fc.oneof(...members.map((m) => invalid(m, opts)));
  switch (s.type) {
    case 'null':
      return otherType('null');
    case 'boolean':
      return fc.oneof(fc.constantFrom('true', 'false', 1, 0, 'yes'), otherType('boolean'));
    case 'integer':
    case 'number':
      return numberInvalid(s);
    case 'string':
      return stringInvalid(s);
    case 'array':
      return arrayInvalid(s, opts);
    case 'object':
      return objectInvalid(s, opts);
    default:
      // Everything is valid for the empty schema; send something awkward anyway.
      return fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant('\u0000'), fc.constant({ '\u0000': 1 }));
  }
}

/** Mostly valid values, a good share invalid: the fuzz sweep's input for one call. */
export const mixed = (schema: Schema, opts: ArbOptions = {}): Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: valid(schema, opts) }, { weight: 2, arbitrary: invalid(schema, opts) });

/**
 * The smallest bodies a client generator builds from the schema alone: required fields only, at
 * every level, and what an `if`/`then` asks for when its `if` holds (the schema's allOf). What
 * the schema states is all that is used, so a body the server refuses is a rule the schema lacks.
 */
export function requiredOnly(schema: Schema, opts: ArbOptions = {}): Arbitrary<unknown> {
  const s = schema ?? {};
  if (s.const !== undefined || Array.isArray(s.enum)) return valid(s, opts);
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((m: Schema) => requiredOnly(m, opts)));
  if (Array.isArray(s.oneOf)) return fc.oneof(...s.oneOf.map((m: Schema) => requiredOnly(m, opts)));
  if (s.type === 'array') {
    const min = s.minItems ?? 0;
    return fc.array(s.items ? requiredOnly(s.items, opts) : fc.jsonValue({ maxDepth: 1 }), { minLength: min, maxLength: Math.max(min, 1) });
  }
  if (s.type !== 'object' || !s.properties || !Object.keys(s.properties).length) return valid(s, opts);
  const props: Record<string, Schema> = s.properties;
  const pick = (names: string[]) => fc.record(Object.fromEntries(names.filter((k) => props[k]).map((k) => [k, requiredOnly(props[k], opts)])));
  const conditions: Schema[] = (s.allOf ?? []).filter((m: Schema) => m.if && m.then);
  return pick(s.required ?? []).chain((base) => {
    // Each condition whose `if` holds adds its required fields (and their own required ones).
    const extra = conditions
      .filter((c) => holds(c.if, base))
      .map((c) => {
        // An anyOf of requirements is met by its first.
        const names: string[] = [...(c.then.required ?? []), ...(c.then.anyOf?.[0]?.required ?? [])].filter((k: string) => !(k in base));
        return fc.record(Object.fromEntries(names.map((k) => [k, requiredOnly({ ...props[k], ...(c.then.properties?.[k] ?? {}) }, opts)])));
      });
    return extra.length ? fc.tuple(...extra).map((parts) => Object.assign({ ...base }, ...parts)) : fc.constant({ ...base });
  });
}

/** Whether an `if` of the form the schemas use (properties with enum/const, required) holds. */
function holds(cond: Schema, value: Record<string, unknown>): boolean {
  if (cond.not) return !holds(cond.not, value);
  if ((cond.required ?? []).some((k: string) => !(k in value))) return false;
  return Object.entries<Schema>(cond.properties ?? {}).every(([k, p]) => {
    if (!(k in value)) return true;
    if (p.const !== undefined) return value[k] === p.const;
    if (Array.isArray(p.enum)) return p.enum.includes(value[k]);
    return true;
  });
}
