import { Type } from '@sinclair/typebox';
import { actionFor, chatModel, definePlugin, errors, job, JobStarted, noExample, providerSettings, onFirstCall } from '../../core/sdk';
import { productsIn } from '../products/public';
import migration001 from './migrations/001_enrichment_slots.sql' with { type: 'text' };
import { BulkInput, CustomerInput, EnrichedCustomer, Enrichment, EnrichProductInput } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { bulkEnrich } = onFirstCall(() => import('./bulk'));
const { enrichProduct } = onFirstCall(() => import('./enrich'));

const EnrichmentConfig = Type.Object({
  ...providerSettings,
  // The llm tool's own setting: one model writes every text of the store.
  model: Type.String({
    env: 'SVC_LLM_MODEL',
    default: 'openai/gpt-4o-mini',
    pattern: '^(openai|anthropic)/.+$',
    description: 'The chat model that writes product copy (llm’s default model).',
  }),
  concurrency: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 4,
    description: 'At most this many products of one store at the model at once in bulk_enrich (SVC_ENRICHMENT_CONCURRENCY).',
  }),
});
const action = actionFor(EnrichmentConfig);

/**
 * SPEC 4.10 enrichment: product copy (description, tags, SEO title and meta description,
 * attributes) written by the chat model of core/providers, applied through products' own
 * update only when asked; customers' order statistics through customers.enrich_customer; and a
 * bulk job over up to 100 products, a few at a time per store.
 */
const enrichment = definePlugin({
  name: 'enrichment',
  category: 'intelligence',
  catalog: true,
  description:
    'Write product copy with the language model (description, tags, SEO title and meta description, attributes) and optionally apply it; recompute customer statistics; enrich many products as a job.',
  // SPEC 5.4: platform.
  scopes: { read: ['platform'], write: ['platform'] },
  // products: read and written through its own actions, as this plugin; customers: its enrich_customer.
  requires: ['products', 'customers'],
  config: EnrichmentConfig,
  tables: ['enrichment_slots'],
  migrations: [{ id: 'enrichment/001_enrichment_slots', sql: migration001 }],
  jobs: {
    bulk_enrich: job({
      description: 'Enriches each listed product as enrich_product does, SVC_ENRICHMENT_CONCURRENCY at a time per store.',
      input: BulkInput,
      // A provider error is each product's own (listed); what reaches here is a lost worker or database.
      retries: 2,
      // The kit's job ctx is untyped in its config: this plugin's is EnrichmentConfig.
      handler: (ctx, input) => bulkEnrich(ctx as unknown as Parameters<typeof bulkEnrich>[0], input),
    }),
  },
  actions: {
    enrich_product: action({
      kind: 'write',
      // It waits on the model and writes nothing itself; products' update (apply) is its own transaction.
      external: true,
      description:
        'Have the language model write a product’s description, tags, SEO title, SEO meta description and attributes (or the fields named). ' +
        'apply: false answers the suggestions only; apply: true also writes them to the product (description, and metadata tags, seo_title, seo_description, attr_<name>).',
      input: EnrichProductInput,
      output: Enrichment,
      rest: { method: 'POST', path: '/enrichment/product' },
      errors: ['provider_not_configured', 'provider_error', 'rate_limit_exceeded', 'spend_cap_reached'],
      example: noExample('calls a language model; enrichment.test.ts covers it against a local fake'),
      handler: (ctx, input) => enrichProduct(ctx, input),
    }),
    enrich_customer: action({
      kind: 'write',
      description:
        'Recompute a customer’s order statistics and segment hints (customers.enrich_customer: from the store’s own orders, no outside provider).',
      input: CustomerInput,
      output: EnrichedCustomer,
      rest: { method: 'POST', path: '/enrichment/customer' },
      example: async ({ make }) => ({ customer_id: (await make('customers.create_customer')).id }),
      handler: (ctx, input) => ctx.call('customers.enrich_customer', { id: input.customer_id }, { notFoundParam: 'customer_id' }),
    }),
    bulk_enrich: action({
      kind: 'write',
      description:
        'Enrich up to 100 products as a job (enrich_product for each, a few at a time): poll it for progress; its result lists each product’s suggestions and the failures.',
      input: BulkInput,
      output: JobStarted,
      startsJob: true,
      rest: { method: 'POST', path: '/enrichment/bulk', status: 202 },
      errors: ['provider_not_configured'],
      example: noExample('its job calls a language model; bulk.test.ts covers it against a local fake'),
      handler: async (ctx, input) => {
        // Every product must exist, and the model be configured, before a job is queued.
        const live = await productsIn(ctx.db, ctx.store.id, input.product_ids);
        const missing = input.product_ids.findIndex((id) => !live.has(id));
        if (missing >= 0) throw errors.notFound(`product: '${input.product_ids[missing]}'`, `product_ids.${missing}`);
        chatModel(ctx.config.model, ctx.config, '');
        return ctx.startJob('bulk_enrich', input);
      },
    }),
  },
});
export default enrichment;
