/**
 * What TypeBox's compiled checker does not evaluate: JSON Schema `if`/`then`/`else` (conditional
 * requirements, e.g. a product QR code needs destination_url). A schema holding one is also
 * checked by ajv, compiled from the very same schema, so a rule stated in /openapi.json is a rule
 * enforced (issue 44). Only such schemas pay for it; the others never reach ajv.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import { FORMATS } from './formats';
import { lazy } from '../lazy';

// Made at the first conditional schema checked: most processes never load ajv for this.
const ajv = lazy(() => {
  const Ajv: typeof import('ajv').default = require('ajv').default;
  const made = new Ajv({ strict: false, allErrors: false, verbose: true, validateFormats: true });
  for (const [name, check] of Object.entries(FORMATS)) made.addFormat(name, check);
  made.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return made;
});

const compiled = new WeakMap<TSchema, ValidateFunction | null>();

function hasConditional(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(hasConditional);
  for (const [k, v] of Object.entries(node)) {
    if (k === 'if' && v && typeof v === 'object' && !Array.isArray(v)) return true;
    if (hasConditional(v)) return true;
  }
  return false;
}

/** The ajv check of `schema` when it holds a conditional, else null (compiled once per schema). */
function conditionalCheck(schema: TSchema): ValidateFunction | null {
  let fn = compiled.get(schema);
  if (fn === undefined) {
    // JSON round trip: TypeBox's symbol keys are dropped, what remains is the published schema.
    // Its `$schema` is left out: ajv's default instance knows draft-07 only, and the keywords
    // checked here mean the same in 2020-12 (a tool may declare that dialect, SEP-1613).
    const { $schema: _, ...published } = JSON.parse(JSON.stringify(schema));
    fn = hasConditional(schema) ? ajv().compile(published) : null;
    compiled.set(schema, fn);
  }
  return fn;
}

const param = (pointer: string, extra?: string) =>
  [...pointer.split('/').slice(1), ...(extra ? [extra] : [])].map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');

/** The first conditional rule `input` breaks, as a message and a param; undefined when none. */
export function conditionalFailure(schema: TSchema, input: unknown): { message: string; param: string | null } | undefined {
  const check = conditionalCheck(schema);
  if (!check || check(input)) return undefined;
  const errs = check.errors ?? [];
  // "one of these fields" (anyOf of requirements): said as a whole, naming the last of them.
  const any = errs.find((x: ErrorObject) => x.keyword === 'anyOf');
  if (any) {
    const branches = (any.schema as { required?: string[] }[]) ?? [];
    const p = param(any.instancePath, branches.at(-1)?.required?.[0]) || null;
    const why = (any.parentSchema as { errorMessage?: string } | undefined)?.errorMessage ?? 'is missing';
    return { message: `Missing ${branches.map((b) => b.required?.join(' and ')).join(' or ')}: ${why}.`, param: p };
  }
  const e = errs.find((x: ErrorObject) => x.keyword !== 'if') ?? errs[0];
  if (!e) return { message: 'Invalid request.', param: null };
  if (e.keyword === 'required') {
    const p = param(e.instancePath, String(e.params.missingProperty));
    return { message: `Missing required parameter: ${p}.`, param: p };
  }
  const p = param(e.instancePath) || null;
  const why = (e.parentSchema as { errorMessage?: string } | undefined)?.errorMessage ?? e.message ?? 'is invalid';
  return { message: p ? `Invalid ${p}: ${why}.` : `Invalid request: ${why}.`, param: p };
}
