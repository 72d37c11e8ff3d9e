import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';
import { Product } from '../products/public';

/**
 * Text PostgreSQL can store: no U+0000 and no lone UTF-16 surrogate. Refusing both here makes such
 * input a 400 naming the field instead of a 500 from the database. Matched per UTF-16 code unit.
 */
const SAFE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';

export const HANDLE_MAX = 100;
/** Lower-case ASCII words joined by single hyphens: safe in a URL without escaping. */
const Handle = (description = 'URL handle (slug), e.g. summer-sale; unique in the store. Derived from the title when left out.') =>
  Type.String({
    minLength: 1,
    maxLength: HANDLE_MAX,
    pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
    errorMessage: 'must be lower-case letters and digits, in words joined by single hyphens (e.g. summer-sale)',
    description,
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
  handle: Type.Optional(Handle()),
  description: Type.Optional(
    Type.String({ maxLength: 20000, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates' }),
  ),
});

export const CollectionQuery = Input({
  ...ListParams,
  handle: Type.Optional(
    Type.String({
      maxLength: HANDLE_MAX,
      pattern: SAFE_TEXT,
      errorMessage: 'must not contain NUL characters or unpaired surrogates',
      description: 'Only the collection with this handle.',
    }),
  ),
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

export const CollectionId = Input({ id: Uuid('Collection id') });

export const CollectionUpdate = Input({
  id: Uuid('Collection id'),
  title: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates' }),
  ),
  handle: Type.Optional(Handle('A new URL handle (slug), unique in the store. A new title does not change it.')),
  description: Type.Optional(
    Type.Union(
      [Type.String({ maxLength: 20000, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates' }), Type.Null()],
      { description: 'null clears it.' },
    ),
  ),
});

/** What delete_collection answers: the collection is gone; its products are not touched. */
export const CollectionDeleted = Type.Object({ object: Type.Literal('collection'), id: Uuid(), deleted: Type.Literal(true) });

export const CollectionProductsQuery = Input({
  id: Uuid('Collection id'),
  limit: ListParams.limit,
  starting_after: Type.Optional(Uuid('Cursor: products added after this product (a product id of this collection).')),
  ending_before: Type.Optional(Uuid('Cursor: products added before this product (a product id of this collection).')),
});
export const CollectionProductList = ListOf(Product);

export const RemoveProduct = Input({
  id: Uuid('Collection id'),
  product_id: Uuid('A product in the collection'),
});
