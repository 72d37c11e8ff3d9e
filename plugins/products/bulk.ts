import { Type, type Static } from '@sinclair/typebox';
import { errors, Input, Metadata, SvcError, Uuid, When, type Ctx } from '../../core/sdk';
import { defaultLocation } from '../inventory/public';
import { Product, ProductCreate, ProductDeleted, ProductUpdate } from './schemas';
import { archiveProduct, createProduct, updateProduct } from './store';

/**
 * POST /products/bulk (SPEC 9 history: bulk product operations, v2026-01-15): up to 1,000
 * creates, updates and archives in one transaction. All or nothing: the first failing item undoes
 * the whole request and its error names the item, `items.412.sku` (the dotted style of every
 * other param, e.g. `line_items.0.product_id`). Each item emits its own product event.
 */
export const MAX_BULK_ITEMS = 1000;

const Action = Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('archive')], {
  description: 'create (fields of create_product), update (id and fields of update_product) or archive (id).',
});

// One flat item shape, so validation errors name a field (items.3.name) rather than a union branch.
const { name: _name, ...createFields } = ProductCreate.properties;
const { id: _id, metadata: _patch, ...updateFields } = ProductUpdate.properties;
const BulkItem = Type.Object(
  {
    action: Action,
    id: Type.Optional(Uuid('The product, for update and archive.')),
    // Create's fields, then update's where both have one: update's are the looser (optional
    // retail, nullable sku), and create's stricter rules are checked in applyOne.
    ...createFields,
    ...updateFields,
    metadata: Type.Optional(Metadata('On create, the metadata; on update, keys merged in ("" removes one).')),
  },
  {
    additionalProperties: false,
    // Which fields each action needs, in the schema (if/then) and checked from it (issue 44).
    allOf: [
      When('action', ['create'], {
        required: ['name'],
        forbidden: { id: 'is not taken on create: the server gives a created product its id' },
        properties: { pricing_data: { required: ['retail'] } },
      }),
      When('action', ['update', 'archive'], { required: ['id'] }),
    ],
  },
);

export const BulkInput = Input({
  items: Type.Array(BulkItem, {
    minItems: 1,
    maxItems: MAX_BULK_ITEMS,
    description: `Up to ${MAX_BULK_ITEMS} operations, applied in order, all or nothing.`,
  }),
});

export const BulkResult = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Union([Product, ProductDeleted]), { description: 'One result per item, in order: the product, or the archived stub.' }),
  has_more: Type.Boolean(),
  url: Type.String(),
});

const CREATE_ONLY = ['type', 'options', 'variants'] as const;

/** The error of item i, its param prefixed with the item's path. */
function forItem(err: unknown, i: number): unknown {
  if (!(err instanceof SvcError)) return err;
  const param = `items.${i}${err.param ? `.${err.param}` : ''}`;
  return new SvcError(err.code, `items.${i}: ${err.message}`, param);
}

async function applyOne(ctx: Ctx, item: Static<typeof BulkItem>) {
  const { action, id, ...fields } = item;
  if (action === 'create') {
    if (id !== undefined) throw errors.validation('Invalid id: a created product gets its id from the server.', 'id');
    if (fields.name === undefined) throw errors.validation('Missing name: required to create a product.', 'name');
    if (fields.pricing_data && fields.pricing_data.retail === undefined)
      throw errors.validation('Missing pricing_data.retail: required when pricing_data is given on create.', 'pricing_data.retail');
    return createProduct(ctx, fields as Static<typeof ProductCreate>);
  }
  if (id === undefined) throw errors.validation(`Missing id: required to ${action} a product.`, 'id');
  if (action === 'archive') {
    const extra = Object.keys(fields)[0];
    if (extra) throw errors.validation(`Invalid ${extra}: archive takes only id.`, extra);
    return archiveProduct(ctx, id);
  }
  const createOnly = CREATE_ONLY.find((f) => fields[f] !== undefined);
  if (createOnly) throw errors.validation(`Invalid ${createOnly}: only create takes it.`, createOnly);
  return updateProduct(ctx, { id, ...fields } as Static<typeof ProductUpdate>);
}

export async function bulkProducts(ctx: Ctx, input: Static<typeof BulkInput>) {
  return ctx.db.transaction(async (tx) => {
    const c = { ...ctx, db: tx };
    // Made first, so no item's create can race another request to make it (createProduct's retry
    // cannot run inside a transaction that a failed statement has aborted).
    if (input.items.some((i) => i.action === 'create')) await defaultLocation(tx, ctx.store.id, ctx.clock.now());
    const data = [];
    for (const [i, item] of input.items.entries()) {
      try {
        data.push(await applyOne(c, item));
      } catch (err) {
        throw forItem(err, i);
      }
    }
    return { object: 'list' as const, data, has_more: false, url: `${ctx.storePath}/products/bulk` };
  });
}
