import { Type } from '@sinclair/typebox';
import { Input, Uuid } from '../../core/sdk';
import { Product } from '../products/public';

/** What enrich_product can write, in the order the prompt asks for them. */
export const FIELDS = ['description', 'tags', 'seo_title', 'seo_description', 'attributes'] as const;
export type Field = (typeof FIELDS)[number];

const FieldName = Type.Union(
  FIELDS.map((f) => Type.Literal(f)),
  { description: 'description, tags, seo_title, seo_description (the meta description) or attributes.' },
);
export const Fields = Type.Array(FieldName, {
  minItems: 1,
  uniqueItems: true,
  description: 'What to write; default all five.',
});
const Apply = Type.Boolean({
  description: 'true: write the suggestions to the product through products.update_product; false: only answer them.',
});

export const EnrichProductInput = Input({ product_id: Uuid('The product to enrich.'), fields: Type.Optional(Fields), apply: Apply });

/** At most this many products in one bulk_enrich job (its result lists each one). */
export const MAX_BULK = 100;
export const BulkInput = Input({
  product_ids: Type.Array(Uuid(), { minItems: 1, maxItems: MAX_BULK, uniqueItems: true, description: `Up to ${MAX_BULK} products.` }),
  fields: Type.Optional(Fields),
  apply: Apply,
});

export const Suggestions = Type.Object(
  {
    description: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
    seo_title: Type.Optional(Type.String()),
    seo_description: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'snake_case name to value, e.g. {"material": "linen"}.' })),
  },
  { description: 'What the model wrote, one entry per field asked for.' },
);

export const Enrichment = Type.Object({
  object: Type.Literal('product_enrichment'),
  product_id: Uuid(),
  fields: Type.Array(Type.String()),
  suggestions: Suggestions,
  applied: Type.Boolean({ description: 'The suggestions were written to the product.' }),
  product: Type.Union([Product, Type.Null()], { description: 'The product after the write (apply: true), else null.' }),
  model: Type.String({ description: 'The model that wrote them (SVC_LLM_MODEL).' }),
  usage: Type.Object({ input_tokens: Type.Integer({ minimum: 0 }), output_tokens: Type.Integer({ minimum: 0 }) }),
});

export const CustomerInput = Input({ customer_id: Uuid('The customer to enrich.') });
/** customers.enrich_customer's answer: the customer with its recomputed `enrichment` (customers owns the full shape). */
export const EnrichedCustomer = Type.Object(
  { object: Type.Literal('customer'), id: Uuid(), enrichment: Type.Unknown() },
  { additionalProperties: true, description: 'The customer as customers.get_customer answers it, with its new enrichment.' },
);
