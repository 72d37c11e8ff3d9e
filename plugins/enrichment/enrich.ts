import type { Static } from '@sinclair/typebox';
import Ajv from 'ajv';
import { chatModel, fail, metered, type Ctx, type ProviderConfig } from '../../core/sdk';
import type { Product } from '../products/public';
import { FIELDS, type Field, type Enrichment, type Suggestions } from './schemas';

type ProductOut = Static<typeof Product>;

/** enrichment's settings: the provider layer's, the model (llm's SVC_LLM_MODEL) and the concurrency. */
export interface EnrichmentConfig extends ProviderConfig {
  model: string;
  concurrency: number;
}
export type EnrichCtx = Ctx<EnrichmentConfig>;

/**
 * The structured answer asked of the model. The limits are what the product can store (metadata
 * values are at most 500 characters, `tags` is one of them joined); the prompt asks for the
 * lengths search engines show, which a model may overshoot a little without failing the call.
 */
const PROPERTIES: Record<Field, object> = {
  description: { type: 'string', minLength: 1, maxLength: 5000 },
  tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 30 }, minItems: 1, maxItems: 15 },
  seo_title: { type: 'string', minLength: 1, maxLength: 120 },
  seo_description: { type: 'string', minLength: 1, maxLength: 320 },
  attributes: {
    type: 'object',
    additionalProperties: { type: 'string', minLength: 1, maxLength: 200 },
    propertyNames: { minLength: 1, maxLength: 40 },
    maxProperties: 10,
  },
};

const GUIDE: Record<Field, string> = {
  description: 'description: a product description for the shop page, 2 to 4 short paragraphs of plain text, factual, no invented claims',
  tags: 'tags: 3 to 10 short lowercase search tags',
  seo_title: 'seo_title: a page title for search engines, at most 60 characters',
  seo_description: 'seo_description: a meta description for search engines, at most 155 characters',
  attributes: 'attributes: product attributes the text supports (material, colour, size, use ...), as {"snake_case_name": "value"}',
};

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

export function schemaFor(fields: readonly Field[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f, PROPERTIES[f]])),
    required: [...fields],
    additionalProperties: false,
  };
}

/** One compiled checker per field set (at most 31 of them), kept for the process. */
function validatorFor(fields: readonly Field[], schema: object) {
  const key = fields.join(',');
  let v = validators.get(key);
  if (!v) validators.set(key, (v = ajv.compile(schema)));
  return v;
}

/** The fields asked for, in the canonical order. */
export const fieldsOf = (asked?: readonly Field[]) => FIELDS.filter((f) => !asked || asked.includes(f));

/** What the model is told about the product: what a shopper would see, and what the merchant already wrote. */
export function productText(p: ProductOut) {
  const lines = [`Name: ${p.name}`, `Type: ${p.type}`];
  if (p.sku) lines.push(`SKU: ${p.sku}`);
  lines.push(`Price: ${p.pricing_data.retail} ${p.pricing_data.currency}`);
  for (const o of p.options ?? []) lines.push(`Option ${o.name}: ${o.values.join(', ')}`);
  const meta = Object.entries(p.metadata ?? {});
  if (meta.length) lines.push(`Details: ${meta.map(([k, v]) => `${k}=${v}`).join('; ')}`);
  lines.push('', 'Current description:', p.description ? p.description.slice(0, 8000) : '(none)');
  return lines.join('\n');
}

/**
 * One structured answer from the configured chat model, metered for the store and refused at its
 * spend cap (core/providers). An answer outside the schema is asked for once more, then 502
 * provider_error, as the llm tool does; both calls are counted.
 */
async function ask(ctx: EnrichCtx, fields: readonly Field[], product: ProductOut) {
  // No field chose the provider: the error names the setting, not a `model` the client never sent.
  const { provider, model } = chatModel(ctx.config.model, ctx.config, '');
  const schema = schemaFor(fields);
  const validate = validatorFor(fields, schema);
  const system =
    'You write catalogue copy for an online shop. From the product facts the user gives, write: ' +
    fields.map((f) => GUIDE[f]).join('; ') +
    '. Use only what the facts support; answer in the language of the product name.';
  const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
  const usage = { input_tokens: 0, output_tokens: 0 };
  let why = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const c = await metered(meter, provider.name, model, async () => {
      const r = await provider.complete({ model, system, prompt: productText(product), schema, maxTokens: 2000, signal: ctx.shutdown });
      return { value: r, usage: r.usage };
    });
    usage.input_tokens += c.usage.input_tokens;
    usage.output_tokens += c.usage.output_tokens;
    if (c.json !== undefined && validate(c.json)) return { data: c.json as Record<string, unknown>, usage };
    const err = validate.errors?.[0];
    why = c.json === undefined ? 'its answer was not JSON' : `its answer ${err?.instancePath || ''} ${err?.message ?? 'does not match'}`.trim();
  }
  throw fail('provider_error', `${provider.name} answered outside the requested schema twice (${why}).`);
}

/** A tag as stored: one line of the comma-joined `tags` metadata value, so no comma in it. */
const cleanTag = (t: string) =>
  t
    .replace(/[,\n\r]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
/** An attribute's name as a metadata key: `attr_` + snake_case, 40 characters at most. */
const attrKey = (name: string) =>
  `attr_${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 35)}`;

/** The model's answer made tidy: trimmed text, tags without duplicates, attribute names as snake_case. */
export function tidy(data: Record<string, unknown>, fields: readonly Field[]): Static<typeof Suggestions> {
  const out: Static<typeof Suggestions> = {};
  for (const f of fields) {
    const v = data[f];
    if (f === 'tags') out.tags = [...new Set((v as string[]).map(cleanTag).filter(Boolean))];
    else if (f === 'attributes') {
      const attrs: Record<string, string> = {};
      for (const [k, val] of Object.entries(v as Record<string, string>)) {
        const key = attrKey(k).slice(5);
        if (key && val.trim()) attrs[key] = val.trim().slice(0, 200);
      }
      out.attributes = attrs;
    } else out[f] = (v as string).trim();
  }
  return out;
}

/**
 * The product update that writes suggestions: the description in its own field, the rest in the
 * product's metadata (`tags` comma-joined, `seo_title`, `seo_description`, `attr_<name>`), merged
 * with what is there.
 */
export function updateOf(id: string, s: Static<typeof Suggestions>) {
  const metadata: Record<string, string> = {};
  if (s.tags?.length) metadata.tags = s.tags.join(', ');
  if (s.seo_title) metadata.seo_title = s.seo_title;
  if (s.seo_description) metadata.seo_description = s.seo_description;
  for (const [k, v] of Object.entries(s.attributes ?? {})) metadata[attrKey(k)] = v;
  return {
    id,
    ...(s.description ? { description: s.description } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
  };
}

/**
 * enrich_product: the product read through products (404 first, before any setting), the model
 * asked, and only with `apply` the answer written through products.update_product, after the
 * model answered: a failed call writes nothing.
 */
export async function enrichProduct(
  ctx: EnrichCtx,
  input: { product_id: string; fields?: Field[]; apply: boolean },
): Promise<Static<typeof Enrichment>> {
  const fields = fieldsOf(input.fields);
  const product = await ctx.call('products.get_product', { id: input.product_id }, { notFoundParam: 'product_id' });
  const answer = await ask(ctx, fields, product);
  const suggestions = tidy(answer.data, fields);
  const updated = input.apply ? await ctx.call('products.update_product', updateOf(product.id, suggestions), { notFoundParam: 'product_id' }) : null;
  return {
    object: 'product_enrichment',
    product_id: product.id,
    fields: [...fields],
    suggestions,
    applied: input.apply,
    product: updated,
    model: ctx.config.model,
    usage: answer.usage,
  };
}
