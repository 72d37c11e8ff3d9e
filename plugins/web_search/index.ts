import { Type } from '@sinclair/typebox';
import {
  action,
  definePlugin,
  errors,
  Input,
  metered,
  noExample,
  providerSettings,
  searchProvider,
  type ProviderConfig,
  onFirstCall,
} from '../../core/sdk';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { fetchPage, selectText } = onFirstCall(() => import('./page'));

const WebSearchConfig = Type.Object({
  ...providerSettings,
  fetch_timeout_s: Type.Number({
    exclusiveMinimum: 0,
    maximum: 120,
    default: 20,
    description: 'How long fetch_page waits for a page (SVC_WEB_SEARCH_FETCH_TIMEOUT_S).',
  }),
});

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL; private and loopback addresses are refused.' });

/** The most of a page's markdown handed to the model for a schema extraction (llm's text limit). */
const MAX_EXTRACT_CHARS = 100_000;

/**
 * Web search through SearXNG (SVC_SEARXNG_URL) or Brave (SVC_BRAVE_API_KEY), and pages read as
 * markdown or data. Searches are metered; pages are fetched through the egress guard.
 */
export default definePlugin({
  name: 'web_search',
  category: 'intelligence',
  catalog: true,
  description: 'Search the web, read a page as markdown, or extract data from a page by CSS selectors or a JSON Schema.',
  // SPEC 5.4: platform.
  scopes: { read: ['platform'], write: ['platform'] },
  config: WebSearchConfig,
  // extract_data with a schema asks llm.extract, as this plugin (a platform key needs no ai scope).
  calls: ['llm'],
  actions: {
    search: action({
      kind: 'read',
      description: 'Search the web: titles, URLs and snippets in the search provider’s order.',
      input: Input({
        query: Type.String({ minLength: 1, maxLength: 400 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 10 })),
      }),
      output: Type.Object({
        object: Type.Literal('list'),
        provider: Type.String({ description: 'searxng or brave.' }),
        data: Type.Array(Type.Object({ title: Type.String(), url: Type.String(), snippet: Type.String() })),
      }),
      rest: { method: 'GET', path: '/web-search' },
      example: { query: 'linen aprons', limit: 3 },
      handler: async (ctx, input) => {
        const provider = searchProvider(ctx.config as ProviderConfig);
        const model = provider.name === 'brave' ? 'web' : 'search';
        const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
        const data = await metered(meter, provider.name, model, async () => ({
          value: await provider.search(input.query, input.limit ?? 10, ctx.shutdown),
          usage: { requests: 1 },
        }));
        return { object: 'list' as const, provider: provider.name, data };
      },
    }),
    fetch_page: action({
      kind: 'read',
      description: 'Read a web page as markdown (its main text; at most 2 MiB, 20 s).',
      input: Input({ url: Url }),
      output: Type.Object({
        object: Type.Literal('page'),
        url: Type.String({ description: 'After redirects.' }),
        status: Type.Integer(),
        content_type: Type.String(),
        title: Type.String(),
        markdown: Type.String(),
        truncated: Type.Boolean({ description: 'The page was over 2 MiB: the rest was not read.' }),
      }),
      rest: { method: 'GET', path: '/web-search/page' },
      example: noExample('reads a page outside svc, which the egress guard refuses on loopback in the sweeps; web_search.test.ts covers it'),
      handler: async (ctx, input) => {
        const { html: _, ...page } = await fetchPage(ctx, input.url);
        return { object: 'page' as const, ...page };
      },
    }),
    extract_data: action({
      kind: 'write',
      external: true,
      description:
        'Extract data from a page: selectors {name: css} answers each name’s matching texts; schema (a JSON Schema of an object) asks the language model for that object.',
      input: Input({
        url: Url,
        selectors: Type.Optional(
          Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ minLength: 1, maxLength: 500 }), { maxProperties: 50 }),
        ),
        schema: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema of an object.' })),
        model: Type.Optional(
          Type.String({ maxLength: 200, description: 'With schema: openai/<model> or anthropic/<model> (default SVC_LLM_MODEL).' }),
        ),
      }),
      output: Type.Object({ object: Type.Literal('extraction'), url: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) }),
      rest: { method: 'POST', path: '/web-search/extract' },
      example: noExample('reads a page outside svc, which the egress guard refuses on loopback in the sweeps; web_search.test.ts covers it'),
      handler: async (ctx, input) => {
        if (!input.selectors === !input.schema)
          throw errors.validation('Give either selectors ({name: css}) or schema, not both or neither.', 'selectors');
        if (input.selectors && !Object.keys(input.selectors).length) throw errors.validation('selectors names no field.', 'selectors');
        const page = await fetchPage(ctx, input.url);
        if (input.selectors) {
          if (page.html === undefined) throw errors.validation(`The page at ${page.url} is not HTML: selectors need HTML.`, 'url');
          return { object: 'extraction' as const, url: page.url, data: await selectText(page.html, input.selectors) };
        }
        const text = `# ${page.title}\n\n${page.markdown}`.slice(0, MAX_EXTRACT_CHARS);
        const r = await ctx.call('llm.extract', { text, schema: input.schema, ...(input.model ? { model: input.model } : {}) });
        return { object: 'extraction' as const, url: page.url, data: r.data };
      },
    }),
  },
});
