import { Type, type TProperties } from '@sinclair/typebox';
import { ORIGIN_PATTERN } from './formats';

/** Shared schema pieces for plugin inputs and outputs. */
export const Uuid = (description?: string) =>
  Type.String({
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    errorMessage: 'must be a UUID',
    description,
  });

export const Timestamp = () => Type.String({ description: 'ISO 8601 UTC timestamp' });

/** Inputs reject unknown fields, as Stripe does: a misspelt field is an error, not silently dropped. */
export const Input = <T extends TProperties>(props: T) => Type.Object(props, { additionalProperties: false });

/** Cursor pagination parameters of every list action. */
export const ListParams = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Page size, 1 to 100 (default 10).' })),
  starting_after: Type.Optional(Uuid('Cursor: return items after (older than) this id.')),
  ending_before: Type.Optional(Uuid('Cursor: return items before (newer than) this id.')),
};

export const ListOf = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    url: Type.String(),
  });

export const Deleted = Type.Object({ id: Type.String(), object: Type.String(), deleted: Type.Boolean() });

/** An email address (`format: email`; plain `a@b.example`, no display name). */
export const Email = (description = 'An email address (name <addr> is not accepted).', opts: { maxLength?: number } = {}) =>
  Type.String({ format: 'email', minLength: 3, maxLength: opts.maxLength ?? 320, errorMessage: 'must be an email address', description });

/** An absolute http(s) URL without user:password@ (`format: uri`, the scheme spelt out as a pattern). */
export const WebUrl = (description: string, opts: { maxLength?: number; httpsOnly?: boolean } = {}) =>
  Type.String({
    format: 'uri',
    pattern: opts.httpsOnly ? '^[Hh][Tt][Tt][Pp][Ss]://' : '^[Hh][Tt][Tt][Pp][Ss]?://',
    minLength: 1,
    maxLength: opts.maxLength ?? 2048,
    errorMessage: opts.httpsOnly ? 'must use https (an absolute https URL)' : 'must be an absolute http or https URL',
    description,
  });

/** An origin: scheme, host and port only (https://shop.example.com), as a browser sends it. */
export const Origin = (description: string) =>
  Type.String({
    pattern: ORIGIN_PATTERN,
    maxLength: 300,
    errorMessage: 'must be an origin like https://shop.example.com (scheme, host and port only)',
    description,
  });

/**
 * A conditional requirement (JSON Schema if/then), for an object schema's `allOf`: when `field` is
 * one of `is`, `required` must be present and `forbidden` absent. It is in /openapi.json, and the
 * validator checks it from there (core/plugins/invoke.ts), so the schema says what the server does.
 */
export function When(
  field: string,
  is: readonly string[],
  then: { required?: string[]; forbidden?: Record<string, string>; properties?: Record<string, object> },
) {
  return {
    if: { properties: { [field]: { enum: [...is] } }, required: [field] },
    then: {
      ...(then.required?.length ? { required: then.required } : {}),
      properties: {
        ...then.properties,
        ...Object.fromEntries(Object.entries(then.forbidden ?? {}).map(([k, why]) => [k, { not: {}, errorMessage: why }])),
      },
    },
  };
}
