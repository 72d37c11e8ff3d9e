import { errors } from '../errors';

/** What one unit of a model's or service's use costs, in USD. Every field is optional (0). */
export interface Price {
  input_per_million_tokens?: number;
  output_per_million_tokens?: number;
  per_request?: number;
  per_image?: number;
  per_video_second?: number;
  per_page?: number;
}

/**
 * Known models' list prices (USD), keyed `<provider>/<model>`; `SVC_PROVIDER_PRICES` adds or
 * overrides entries. An unlisted model costs 0 and is still counted. A price list changes: the
 * operator's setting is the way to keep up without a release.
 */
const KNOWN: Record<string, Price> = {
  'openai/gpt-4o': { input_per_million_tokens: 2.5, output_per_million_tokens: 10 },
  'openai/gpt-4o-mini': { input_per_million_tokens: 0.15, output_per_million_tokens: 0.6 },
  'openai/gpt-4.1': { input_per_million_tokens: 2, output_per_million_tokens: 8 },
  'openai/gpt-4.1-mini': { input_per_million_tokens: 0.4, output_per_million_tokens: 1.6 },
  'openai/gpt-4.1-nano': { input_per_million_tokens: 0.1, output_per_million_tokens: 0.4 },
  'openai/gpt-5': { input_per_million_tokens: 1.25, output_per_million_tokens: 10 },
  'openai/gpt-5-mini': { input_per_million_tokens: 0.25, output_per_million_tokens: 2 },
  'openai/text-embedding-3-small': { input_per_million_tokens: 0.02 },
  'openai/text-embedding-3-large': { input_per_million_tokens: 0.13 },
  'anthropic/claude-sonnet-4-5': { input_per_million_tokens: 3, output_per_million_tokens: 15 },
  'anthropic/claude-sonnet-4': { input_per_million_tokens: 3, output_per_million_tokens: 15 },
  'anthropic/claude-haiku-4-5': { input_per_million_tokens: 1, output_per_million_tokens: 5 },
  'anthropic/claude-3-5-haiku-latest': { input_per_million_tokens: 0.8, output_per_million_tokens: 4 },
  'anthropic/claude-opus-4-1': { input_per_million_tokens: 15, output_per_million_tokens: 75 },
  // Sora, per second of video made (720p; sora-2-pro at 1024x1792 or 1792x1024 costs 0.50: override it).
  'openai/sora-2': { per_video_second: 0.1 },
  'openai/sora-2-pro': { per_video_second: 0.3 },
  // Brave's Data for AI plan: $5 per 1,000 requests. SearXNG is the operator's own: free.
  'brave/web': { per_request: 0.005 },
};

const FIELDS = ['input_per_million_tokens', 'output_per_million_tokens', 'per_request', 'per_image', 'per_video_second', 'per_page'] as const;

let cache: { text: string; table: Record<string, Price> } | undefined;

/** The price table with the operator's entries over the known ones (parsed once per setting value). */
export function priceTable(overrides: string | undefined): Record<string, Price> {
  const text = overrides ?? '';
  if (cache?.text === text) return cache.table;
  const table = { ...KNOWN };
  if (text.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw errors.notConfigured('SVC_PROVIDER_PRICES', 'it must be valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw errors.notConfigured('SVC_PROVIDER_PRICES', 'it must be a JSON object');
    for (const [key, entry] of Object.entries(parsed as Record<string, Record<string, unknown>>)) {
      const price: Price = {};
      for (const f of FIELDS) {
        const v = entry?.[f];
        if (typeof v === 'number' && Number.isFinite(v) && v >= 0) price[f] = v;
      }
      table[key] = price;
    }
  }
  cache = { text, table };
  return table;
}

/** The USD cost of one call's counts. */
export function costOf(
  price: Price | undefined,
  u: { requests: number; input_tokens: number; output_tokens: number; images: number; video_seconds: number; pages: number },
): number {
  if (!price) return 0;
  return (
    ((price.input_per_million_tokens ?? 0) * u.input_tokens) / 1e6 +
    ((price.output_per_million_tokens ?? 0) * u.output_tokens) / 1e6 +
    (price.per_request ?? 0) * u.requests +
    (price.per_image ?? 0) * u.images +
    (price.per_video_second ?? 0) * u.video_seconds +
    (price.per_page ?? 0) * u.pages
  );
}
