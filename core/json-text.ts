/**
 * The JSON text of a value, made once per object. A tool call's result is written three times
 * (its audit record, the MCP text mirror, the structured copy beside it); serializing it once is
 * a measurable part of a tools/call. Results are not changed after they are returned, which is
 * what makes keeping the text safe.
 */
const made = new WeakMap<object, string>();

export function jsonText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let text = made.get(value);
  if (text === undefined) made.set(value, (text = JSON.stringify(value) ?? 'null'));
  return text;
}
