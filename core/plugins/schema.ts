import { Type, type TProperties } from '@sinclair/typebox';

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
