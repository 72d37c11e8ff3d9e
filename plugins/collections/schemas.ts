import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

/**
 * Text PostgreSQL can store: no U+0000 and no lone UTF-16 surrogate. Refusing both here makes such
 * input a 400 naming the field instead of a 500 from the database. Matched per UTF-16 code unit.
 */
const SAFE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';

export const HANDLE_MAX = 100;
/** Lower-case ASCII words joined by single hyphens: safe in a URL without escaping. */
const Handle = Type.String({
  minLength: 1,
  maxLength: HANDLE_MAX,
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  errorMessage: 'must be lower-case letters and digits, in words joined by single hyphens (e.g. summer-sale)',
  description: 'URL handle (slug), e.g. summer-sale; unique in the store. Derived from the title when left out.',
});

export const Collection = Type.Object({
  object: Type.Literal('collection'),
  id: Uuid(),
  title: Type.String(),
  handle: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  product_count: Type.Integer({ description: 'Live (not archived) products in the collection.' }),
  product_ids: Type.Array(Uuid(), { description: 'Those products, in the order they were added.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const CollectionCreate = Input({
  title: Type.String({ minLength: 1, maxLength: 255, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates' }),
  handle: Type.Optional(Handle),
  description: Type.Optional(Type.String({ maxLength: 20000, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates' })),
});

export const CollectionQuery = Input({
  ...ListParams,
  handle: Type.Optional(Type.String({ maxLength: HANDLE_MAX, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates', description: 'Only the collection with this handle.' })),
});

export const MAX_PRODUCTS_PER_CALL = 100;
export const AddProducts = Input({
  id: Uuid('Collection id'),
  product_ids: Type.Array(Uuid('A live product of this store'), {
    minItems: 1,
    maxItems: MAX_PRODUCTS_PER_CALL,
    description: 'Products to add (1 to 100). Ids already in the collection are skipped; one unknown id adds nothing.',
  }),
});

export const CollectionList = ListOf(Collection);
