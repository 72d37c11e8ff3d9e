import { Type } from '@sinclair/typebox';
import { errors } from '../errors';

/**
 * `metadata`, the merchant's own key-value pairs on a resource, with Stripe's rules so code
 * written against Stripe carries over: at most 50 keys, keys of 1 to 40 characters, string values
 * of at most 500. On update keys merge into what is there, and a key set to "" (or null) is
 * removed. Lists filter with `metadata[key]=value` (REST; an object for MCP): every pair given
 * must match exactly. Customers, products, variants and orders all use this one definition.
 *
 * Store it in a `jsonb NOT NULL DEFAULT '{}'` column and index it for the filter with
 * `CREATE INDEX ... USING gin (metadata jsonb_path_ops)`; the condition metadataFilter writes is a
 * containment test that index serves.
 */
export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

/** No U+0000 and no lone UTF-16 surrogate: jsonb cannot hold either (a 400, never a 500). */
const SAFE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';
const PLAIN = 'must not contain NUL characters or unpaired surrogates';
const Value = Type.String({ maxLength: METADATA_VALUE_MAX, pattern: SAFE_TEXT, errorMessage: PLAIN });

/** On create, and in outputs: string to string. */
export const Metadata = (description = 'Your own key-value pairs: up to 50 keys (1-40 characters), string values up to 500 characters.') =>
  Type.Record(Type.String(), Value, { maxProperties: METADATA_MAX_KEYS, description });

/** On update: keys merge in; "" or null removes a key (Stripe). */
export const MetadataPatch = () =>
  Type.Record(Type.String(), Type.Union([Value, Type.Null()]), {
    maxProperties: METADATA_MAX_KEYS,
    description: 'Keys to set, merged into the existing metadata; a key set to "" or null is removed.',
  });

/** A list filter: `metadata[key]=value`, every pair must match exactly (case-sensitive). */
export const MetadataFilter = () =>
  Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: METADATA_VALUE_MAX, pattern: SAFE_TEXT, errorMessage: PLAIN }), {
    minProperties: 1,
    maxProperties: METADATA_MAX_KEYS,
    description: 'Only resources whose metadata has every given pair, e.g. metadata[order_ref]=A-17 (REST) or {"order_ref": "A-17"} (MCP).',
  });

/**
 * The key rules a JSON schema cannot state with a helpful message: 1 to 40 characters of storable
 * text, and at most 50 keys (after an update's merge). 400 naming `param`.
 */
export function checkMetadata(metadata: Record<string, unknown>, param = 'metadata') {
  const keys = Object.keys(metadata);
  for (const key of keys)
    if (key.length < 1 || key.length > METADATA_KEY_MAX || /[\u0000\ud800-\udfff]/.test(key))
      throw errors.validation(`Invalid ${param}: keys must be 1 to ${METADATA_KEY_MAX} characters of plain text.`, param);
  if (keys.length > METADATA_MAX_KEYS) throw errors.validation(`Invalid ${param}: at most ${METADATA_MAX_KEYS} keys.`, param);
}

/** An update's metadata: the patch merged into the current pairs ("" or null removes), checked. */
export function mergeMetadata(
  current: Record<string, string> | null | undefined,
  patch: Record<string, string | null> | undefined,
  param = 'metadata',
) {
  const merged: Record<string, string> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null || value === '') delete merged[key];
    else merged[key] = value;
  }
  checkMetadata(merged, param);
  return merged;
}

/**
 * The listPage filter for `metadata[key]=value`: a jsonb containment test (served by a GIN
 * jsonb_path_ops index). Spread into `filters`: `{ ...metadataFilter(input.metadata) }`; nothing
 * when the filter is absent. Filter keys are checked like stored keys (a 41-character key can
 * match nothing, and saying so beats an empty list).
 */
export function metadataFilter(filter: Record<string, string> | undefined, column = 'metadata', param = 'metadata') {
  if (filter === undefined) return {};
  checkMetadata(filter, param);
  return { [`${column} @> $::text::jsonb`]: JSON.stringify(filter) };
}
