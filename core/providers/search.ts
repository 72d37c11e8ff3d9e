import { httpFailure, malformed, ProviderTimeout, providerFetch, timedOut, unreachable, type WireState } from './wire';
import type { SearchProvider, SearchResult } from './types';

interface SearchSettings {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

/** GET a provider's JSON with the shared policy; its final error answer, a timeout or a non-JSON body as our errors. */
async function getJson(provider: string, s: SearchSettings, url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<any> {
  const state: WireState = { timedOut: false };
  let res: Response;
  try {
    res = await providerFetch({ provider, timeoutMs: s.timeoutMs }, state)(url, { headers: { accept: 'application/json', ...headers }, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    if (state.timedOut || err instanceof ProviderTimeout) throw timedOut(provider, s.timeoutMs);
    throw unreachable(provider, (err as Error).message);
  }
  const text = await res.text();
  if (!res.ok) throw httpFailure(provider, res.status, text.slice(0, 300) || res.statusText, res.headers);
  try {
    return JSON.parse(text);
  } catch {
    throw malformed(provider, 'the answer is not JSON');
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Results with a usable http(s) URL, in the provider's order. */
function results(provider: string, list: unknown, snippetKey: string, limit: number): SearchResult[] {
  if (!Array.isArray(list)) throw malformed(provider, 'no result list in the answer');
  return list
    .filter((r) => r && typeof r === 'object' && /^https?:\/\//i.test(str(r.url)))
    .slice(0, limit)
    .map((r) => ({ title: str(r.title), url: r.url, snippet: str(r[snippetKey]) }));
}

/** SearXNG's `GET /search?q=&format=json` (the instance must allow the json format). */
export function searxngSearch(s: SearchSettings): SearchProvider {
  return {
    name: 'searxng',
    async search(query, limit, signal) {
      const url = new URL('search', s.baseUrl.replace(/\/*$/, '/'));
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = await getJson('searxng', s, url, {}, signal);
      return results('searxng', body?.results, 'content', limit);
    },
  };
}

/** Brave's `GET /res/v1/web/search?q=&count=` with `X-Subscription-Token`. */
export function braveSearch(s: SearchSettings): SearchProvider {
  return {
    name: 'brave',
    async search(query, limit, signal) {
      const url = new URL('res/v1/web/search', s.baseUrl.replace(/\/*$/, '/'));
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(Math.min(limit, 20)));
      const body = await getJson('brave', s, url, { 'x-subscription-token': s.apiKey ?? '' }, signal);
      return results('brave', body?.web?.results ?? [], 'description', limit);
    },
  };
}
