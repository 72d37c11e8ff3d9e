import { errors } from '../../core/sdk';

/** What templates and conditions see: the trigger's data, and each finished step's output by id. */
export interface Scope {
  trigger: unknown;
  steps: Record<string, { output: unknown; status: string }>;
}

const WHOLE = /^\{\{\s*([^{}]+?)\s*\}\}$/;
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** An unknown path fails the step that used it, naming the path. */
export class TemplateError extends Error {}

function lookup(path: string, scope: Scope): unknown {
  const parts = path.split('.');
  let value: unknown;
  let rest: string[];
  if (parts[0] === 'trigger') [value, rest] = [scope.trigger, parts.slice(1)];
  else if (parts[0] === 'steps' && parts[2] === 'output' && parts[1] && parts[1] in scope.steps)
    [value, rest] = [scope.steps[parts[1]]!.output, parts.slice(3)];
  else throw new TemplateError(`unknown path '${path}' (templates read trigger.<path> or steps.<id>.output.<path> of an earlier step)`);
  for (const key of rest) {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) value = (value as Record<string, unknown>)[key];
    else throw new TemplateError(`unknown path '${path}': no '${key}' there`);
  }
  return value;
}

/**
 * Fills `{{trigger.<path>}}` and `{{steps.<id>.output.<path>}}` in every string of `value`. A
 * string that is one template keeps the value's JSON type (a number stays a number, an object an
 * object); inside other text a value is written as text (objects as JSON).
 */
export function render(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(whole[1]!, scope);
    return value.replace(ANY, (_, path: string) => {
      const v = lookup(path, scope);
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => render(v, scope));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, scope)]));
  return value;
}

export const templateFailure = (step: string, e: TemplateError) => errors.validation(`Step '${step}': ${e.message}.`, `steps.${step}`);
