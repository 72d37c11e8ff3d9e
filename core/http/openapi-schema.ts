import type { TSchema } from '@sinclair/typebox';
import type { Registry } from '../plugins/registry';

/** Schemas as the OpenAPI document shows them: plain JSON Schema, enums as enums, registry lists filled in. */

type Json = Record<string, any>;

/** TypeBox marks schemas with symbol keys (Kind, Optional); a JSON round trip drops them. */
export const plain = (schema: TSchema): Json => simplifyEnums(JSON.parse(JSON.stringify(schema), dropOwnKeywords));

/**
 * `errorMessage` is our validator's wording for a pattern (core/plugins/messages.ts), not JSON
 * Schema: a document carrying it fails OpenAPI linters, and clients have no use for it.
 */
const dropOwnKeywords = (key: string, value: unknown) => (key === 'errorMessage' ? undefined : value);

/**
 * TypeBox writes a union of string literals as anyOf of consts (nested for unions of unions).
 * The same set as a plain `enum` means the same thing and docs UIs render it as a choice list.
 */
function simplifyEnums(node: any): any {
  if (Array.isArray(node)) return node.map(simplifyEnums);
  if (!node || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, simplifyEnums(v)]));
  const values = Array.isArray(out.anyOf) ? out.anyOf.map(stringChoices) : [];
  if (values.length && values.every(Boolean)) {
    const { anyOf: _, ...rest } = out;
    return { ...rest, type: 'string', enum: values.flat() };
  }
  return out;
}

/** The strings a bare `{const}` or `{enum}` string schema allows, or null for any other schema. */
function stringChoices(s: Json): string[] | null {
  const keys = Object.keys(s).filter((k) => k !== 'type');
  if (s.type !== 'string' || keys.length !== 1) return null;
  if (typeof s.const === 'string') return [s.const];
  if (Array.isArray(s.enum) && s.enum.every((v: unknown) => typeof v === 'string')) return s.enum;
  return null;
}

/**
 * Lists only the registry knows: a schema marked `'x-svc-enum': 'grantable-scopes'` (declared
 * before any registry exists) gets the scopes a key may be given as its enum, so the document and
 * the server check the same list.
 */
export function fillRegistryEnums(node: any, registry: Registry): any {
  if (Array.isArray(node)) return node.map((n) => fillRegistryEnums(n, registry));
  if (!node || typeof node !== 'object') return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fillRegistryEnums(v, registry)]));
  if (out['x-svc-enum'] === 'grantable-scopes') {
    delete out['x-svc-enum'];
    out.enum = [...registry.grantable];
  }
  return out;
}
