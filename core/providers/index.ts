/**
 * The outside services svc calls, one small interface per kind (types.ts: ChatProvider,
 * EmbeddingsProvider, SearchProvider), the adapter chosen by the operator's settings. Every adapter
 * shares one retry/timeout policy and one error mapping (wire.ts) and every call is metered per
 * store and day, refused at the store's spend cap (usage.ts). README.md says how to add an adapter.
 *
 * The chat wire is the vendors' official SDKs (`openai`, `@anthropic-ai/sdk`): typed stop reasons,
 * usage, SSE parsing. The agent loop stays ours (plugins/agents/chat.ts). The fake-server tests
 * (test/kit/fake-models.ts) pin every format.
 */
import { Type } from '@sinclair/typebox';
import { errors, fail } from '../errors';
import { anthropicProvider } from './anthropic';
import { openaiEmbeddings, openaiProvider } from './openai';
import { braveSearch, searxngSearch } from './search';
import { openaiImages, removeBg, stabilityUpscale, type ImageOpProvider, type ImagesProvider } from './images';
import type { ChatProvider, EmbeddingsProvider, SearchProvider } from './types';
import { openaiVideos, type VideosProvider } from './videos';

export type * from './types';
export type { ImageOpProvider, ImagesProvider } from './images';
export type { ProviderVideo, VideosProvider, VideoStatus } from './videos';
export { checkSpendCap, metered, recordUsage, setSpendCap, thisMonth, usageReport, type Meter, type UsageCounts } from './usage';
export { priceTable } from './prices';

const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com/v1';
export const BRAVE_DEFAULT_BASE = 'https://api.search.brave.com';

/**
 * The provider settings, for a plugin's `config` (spread them in): the names every OpenAI- or
 * Anthropic-compatible tool uses, so an operator sets them once for everything on the machine.
 * A base URL is the operator's own setting: calls to it are trusted (no egress guard), so a local
 * Ollama or SearXNG works.
 */
export const providerSettings = {
  openai_base_url: Type.Optional(Type.String({ env: 'OPENAI_BASE_URL', description: 'OpenAI-compatible endpoint (chat, embeddings).' })),
  openai_api_key: Type.Optional(Type.String({ env: 'OPENAI_API_KEY' })),
  anthropic_api_key: Type.Optional(Type.String({ env: 'ANTHROPIC_API_KEY' })),
  anthropic_base_url: Type.Optional(Type.String({ env: 'ANTHROPIC_BASE_URL' })),
  searxng_url: Type.Optional(Type.String({ env: 'SVC_SEARXNG_URL', description: 'A SearXNG instance with the JSON format on.' })),
  brave_api_key: Type.Optional(Type.String({ env: 'SVC_BRAVE_API_KEY' })),
  brave_url: Type.Optional(Type.String({ env: 'SVC_BRAVE_URL' })),
  stability_api_key: Type.Optional(Type.String({ env: 'SVC_STABILITY_API_KEY' })),
  stability_url: Type.Optional(Type.String({ env: 'SVC_STABILITY_URL' })),
  removebg_api_key: Type.Optional(Type.String({ env: 'SVC_REMOVEBG_API_KEY' })),
  removebg_url: Type.Optional(Type.String({ env: 'SVC_REMOVEBG_URL' })),
  provider_timeout_s: Type.Number({
    env: 'SVC_PROVIDER_TIMEOUT_S',
    exclusiveMinimum: 0,
    default: 60,
    description: 'How long one attempt of a provider call may take (until the first byte of a streamed answer).',
  }),
  provider_prices: Type.Optional(
    Type.String({ env: 'SVC_PROVIDER_PRICES', description: 'JSON adding or overriding price table entries: {"openai/llama3.1": {...}}.' }),
  ),
};

/** The settings as a plugin's ctx.config holds them. */
export interface ProviderConfig {
  openai_base_url?: string;
  openai_api_key?: string;
  anthropic_api_key?: string;
  anthropic_base_url?: string;
  searxng_url?: string;
  brave_api_key?: string;
  brave_url?: string;
  stability_api_key?: string;
  stability_url?: string;
  removebg_api_key?: string;
  removebg_url?: string;
  provider_timeout_s?: number;
  provider_prices?: string;
}

/** 400 provider_not_configured naming the setting (errors.notConfigured), on `param` when a field chose the provider. */
function unset(setting: string, purpose: string, param?: string) {
  const e = errors.notConfigured(setting, purpose);
  return param ? fail(e.code, e.message, param) : e;
}

const timeoutMs = (c: ProviderConfig) => (c.provider_timeout_s ?? 60) * 1000;

/**
 * The chat provider for `openai/<model>` or `anthropic/<model>` and the provider's own model name;
 * a provider that is not configured is 400 provider_not_configured naming the setting (never an
 * invented reply).
 */
export function chatModel(model: string, c: ProviderConfig, param = 'model'): { provider: ChatProvider; model: string } {
  const slash = model.indexOf('/');
  const vendor = slash > 0 ? model.slice(0, slash) : '';
  const name = model.slice(slash + 1);
  if (vendor === 'openai') {
    if (!c.openai_base_url) throw unset('OPENAI_BASE_URL', `model '${model}' needs it`, param);
    return { provider: openaiProvider({ baseUrl: c.openai_base_url, apiKey: c.openai_api_key || undefined, timeoutMs: timeoutMs(c) }), model: name };
  }
  if (vendor === 'anthropic') {
    if (!c.anthropic_api_key) throw unset('ANTHROPIC_API_KEY', `model '${model}' needs it`, param);
    const baseUrl = c.anthropic_base_url || ANTHROPIC_DEFAULT_BASE;
    return { provider: anthropicProvider({ baseUrl, apiKey: c.anthropic_api_key, timeoutMs: timeoutMs(c) }), model: name };
  }
  throw errors.validation(`Unknown model provider in '${model}': use openai/<model> or anthropic/<model>.`, param);
}

/** Embeddings speak OpenAI's `/embeddings` (OpenAI, Ollama, vLLM, LiteLLM ...). */
export function embeddingsProvider(c: ProviderConfig): EmbeddingsProvider {
  if (!c.openai_base_url) throw unset('OPENAI_BASE_URL', 'embeddings need an OpenAI-compatible server');
  return openaiEmbeddings({ baseUrl: c.openai_base_url, apiKey: c.openai_api_key || undefined, timeoutMs: timeoutMs(c) });
}

/** Web search: SearXNG when SVC_SEARXNG_URL is set, else Brave with SVC_BRAVE_API_KEY. */
export function searchProvider(c: ProviderConfig): SearchProvider {
  if (c.searxng_url) return searxngSearch({ baseUrl: c.searxng_url, timeoutMs: timeoutMs(c) });
  if (c.brave_api_key) return braveSearch({ baseUrl: c.brave_url || BRAVE_DEFAULT_BASE, apiKey: c.brave_api_key, timeoutMs: timeoutMs(c) });
  throw unset('SVC_SEARXNG_URL or SVC_BRAVE_API_KEY', 'web search needs one of them');
}

export const STABILITY_DEFAULT_BASE = 'https://api.stability.ai';
export const REMOVEBG_DEFAULT_BASE = 'https://api.remove.bg';

/** Image generation and edits speak OpenAI's `/images/*` (OPENAI_BASE_URL). */
export function imagesProvider(c: ProviderConfig): ImagesProvider {
  if (!c.openai_base_url) throw unset('OPENAI_BASE_URL', 'image generation needs an OpenAI-compatible server');
  return openaiImages({ baseUrl: c.openai_base_url, apiKey: c.openai_api_key || undefined, timeoutMs: timeoutMs(c) });
}

/** Upscaling is Stability AI's (SVC_STABILITY_API_KEY). */
export function upscaleProvider(c: ProviderConfig): ImageOpProvider {
  if (!c.stability_api_key) throw unset('SVC_STABILITY_API_KEY', 'upscaling uses Stability AI');
  return stabilityUpscale({ baseUrl: c.stability_url || STABILITY_DEFAULT_BASE, apiKey: c.stability_api_key, timeoutMs: timeoutMs(c) });
}

/** Background removal is remove.bg's (SVC_REMOVEBG_API_KEY). */
export function removeBgProvider(c: ProviderConfig): ImageOpProvider {
  if (!c.removebg_api_key) throw unset('SVC_REMOVEBG_API_KEY', 'background removal uses remove.bg');
  return removeBg({ baseUrl: c.removebg_url || REMOVEBG_DEFAULT_BASE, apiKey: c.removebg_api_key, timeoutMs: timeoutMs(c) });
}

/** Video generation speaks OpenAI's Videos API (`/videos`, OPENAI_BASE_URL). */
export function videosProvider(c: ProviderConfig): VideosProvider {
  if (!c.openai_base_url) throw unset('OPENAI_BASE_URL', 'video generation needs an OpenAI-compatible server');
  return openaiVideos({ baseUrl: c.openai_base_url, apiKey: c.openai_api_key || undefined, timeoutMs: timeoutMs(c) });
}
// Payments (issue 50): the agentic checkout's adapters.
export { STRIPE_DEFAULT_BASE, stripePayments, type ChargeRequest, type ChargeResult, type PaymentsProvider } from './payments';
