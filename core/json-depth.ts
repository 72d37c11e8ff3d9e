import { errors } from './errors';

/**
 * How deep a free-form JSON value (a tool's `parameters` schema, tool inputs, metadata) may nest.
 * 64 is far beyond any real schema or document; what lies beyond it only costs: the parsers,
 * validators and serializers svc and its libraries use recurse, and a value 100,000 levels deep
 * took seconds to fail with a stack overflow (a 500). The check runs first, in linear time.
 */
export const MAX_JSON_DEPTH = 64;

export type JsonPath = (string | number)[];

/**
 * Scans JSON text (without parsing it) for a container nested deeper than `max` levels, the
 * outermost value being level 1. Returns the path to the first one, else undefined. The text need
 * not be valid JSON: the parser that runs afterwards reports syntax errors.
 */
export function tooDeepInText(text: string, max: number): JsonPath | undefined {
  return deeperThan(text, max) ? pathTooDeep(text, max) : undefined;
}

/** The index of the quote closing the string that opens at `start` (escapes skipped), or the end of the text. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === 0x5c /* \ */) i++;
    else if (d === 0x22) break;
  }
  return i;
}

/** Whether containers nest deeper than `max`: brackets counted outside strings, nothing kept (the common, cheap answer). */
function deeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) i = stringEnd(text, i);
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** The path to the first container nested deeper than `max`, for the error that names it. */
function pathTooDeep(text: string, max: number): JsonPath | undefined {
  // One frame per open container: its kind, and where we are in it (the key or the index).
  const frames: { object: boolean; key: string | number; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      i = stringEnd(text, i);
      const top = frames[frames.length - 1];
      if (top?.object && top.expectKey) {
        top.key = decodeKey(text.slice(start, i + 1));
        top.expectKey = false;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const object = c === 0x7b;
      frames.push({ object, key: object ? '' : 0, expectKey: object });
      if (frames.length > max) return frames.slice(0, -1).map((f) => f.key);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
    } else if (c === 0x2c /* , */) {
      const top = frames[frames.length - 1];
      if (!top) continue;
      if (top.object) top.expectKey = true;
      else top.key = (top.key as number) + 1;
    }
  }
  return undefined;
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted);
  } catch {
    return quoted.slice(1, -1);
  }
}

/** The same check over a parsed value, without recursion (the value may be deeper than the stack). */
export function tooDeepInValue(value: unknown, max: number): JsonPath | undefined {
  const stack: { value: unknown; depth: number; path: JsonPath }[] = [{ value, depth: 1, path: [] }];
  while (stack.length) {
    const { value: v, depth, path } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth > max) return path;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    // Reversed, so the first field is examined first and named when several are too deep.
    for (let j = entries.length - 1; j >= 0; j--) stack.push({ value: entries[j][1], depth: depth + 1, path: [...path, entries[j][0]] });
  }
  return undefined;
}

/** `['parameters', 'properties', 0]` -> `parameters.properties.0`, the way other errors name fields. */
export const pathParam = (path: JsonPath) => path.map(String).join('.');

/**
 * The 400 for an object whose field `path[0]` nests too deep (the object itself is level 1, so
 * its fields may nest MAX_JSON_DEPTH levels). Names the field as sent.
 */
export function tooDeepError(path: JsonPath, where = 'request body') {
  const field = path.length ? String(path[0]) : null;
  return errors.validation(
    field
      ? `Invalid ${field}: JSON nested more than ${MAX_JSON_DEPTH} levels deep.`
      : `The ${where} is JSON nested more than ${MAX_JSON_DEPTH} levels deep.`,
    field,
  );
}
