/**
 * Shared parts of the convention sweeps (test/contract/sweeps-*.test.ts): the routes and tools of
 * a registry, requests built from an action's input, the SPEC 7 envelope check, leak checks and the
 * coverage line each sweep prints. Sweeps collect every problem and assert once at the end, so a
 * failing run lists all offending routes, not the first.
 */
import { errorDef } from '../../core/errors';
import { restRoutes, type RestRoute } from '../../core/http/rest';
import { acceptedScopes, isTool, type ActionDef, type PluginDef } from '../../core/plugins/contract';
import { flatName, type Registry } from '../../core/plugins/registry';
import { openai, whole as fakeWhole } from './fake-models';
import { ADMIN_TOKEN, type Harness } from './setup';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Uncoverable, type ActionRef, type World } from './examples';

export interface SweepRoute extends RestRoute {
  /** `plugin.action`, for messages. */
  name: string;
  /** Path parameters other than :storeId, in order. */
  params: string[];
}

/**
 * The routes the sweeps can call. Left to their plugin's tests (plugins/users): routes for a
 * signed-in user only (a user's token comes from the OAuth flow, not from a store's key), and the
 * public pages and OAuth endpoints, which answer HTML or RFC 6749 errors rather than the envelope,
 * and the agentic protocols' endpoints (`rest.host`: ACP, UCP), which answer their protocol's own
 * errors and are swept by their own tests (plugins/checkout) against the protocols' schemas.
 */
export const sweepRoutes = (registry: Registry): SweepRoute[] =>
  restRoutes(registry)
    .filter((r) => !(r.auth.length === 1 && r.auth[0] === 'user') && !(r.auth.includes('public') && r.response === 'raw') && !r.action.rest?.host)
    .map((r) => ({
      ...r,
      name: `${r.plugin.name}.${r.actionName}`,
      params: [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]).filter((p) => p !== 'storeId'),
    }));

export interface SweepTool {
  name: string;
  plugin: PluginDef;
  actionName: string;
  action: ActionDef;
  accepted: string[];
}

/** Every flat MCP tool of the registry's actions (what an all-scopes key lists with tools=flat). */
export const sweepTools = (registry: Registry): SweepTool[] =>
  registry.plugins.flatMap((plugin) =>
    Object.entries(plugin.actions)
      .filter(([, a]) => isTool(plugin, a))
      .map(([actionName, action]) => ({
        name: flatName(plugin, actionName),
        plugin,
        actionName,
        action,
        accepted: acceptedScopes(plugin, action.kind),
      })),
  );

const hasBody = (method: string) => method !== 'GET' && method !== 'DELETE';

/** A query value as a client would write it: text, with objects as JSON. */
const queryText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A path segment as a client's bytes: UTF-8, percent-encoded. A lone surrogate (which UTF-8 cannot
 * hold, and encodeURIComponent refuses) becomes the bytes a careless encoder writes for it, so the
 * server meets invalid UTF-8 in paths too.
 */
function segment(s: string) {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0xd800 || c > 0xdfff) out += encodeURIComponent(ch);
    else out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  }
  return out;
}

/**
 * The URL (and JSON body) that carries `input` to this route: path parameters in the path, the
 * rest in the query (GET, DELETE) or the body.
 */
export function requestFor(route: SweepRoute, storeId: string, input: Record<string, unknown>): { path: string; body?: string } {
  const rest = { ...input };
  let path = route.path.replace(':storeId', storeId);
  for (const p of route.params) {
    path = path.replace(`:${p}`, segment(queryText(rest[p] ?? '')));
    delete rest[p];
  }
  if (hasBody(route.method)) return { path, body: JSON.stringify(rest) };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) q.append(k, queryText(v));
  const qs = q.toString();
  return { path: qs ? `${path}?${qs}` : path };
}

export interface Res {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** One request to the in-process app with exactly these headers (no default credential). */
export async function send(h: Pick<Harness, 'app'>, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Res> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = body;
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await h.app.handle(new Request(`http://svc.test${path}`, init));
  const text = await bodyText(res);
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** The body; of an event stream only its first event (a live stream, such as the executions', never ends by itself). */
async function bodyText(res: Response): Promise<string> {
  if (!res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) return res.text();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

export const keyHeaders = (key: string) => ({ 'x-api-key': key });
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** The credential that may call this route in `world`: none for a public route, the operator's token, or the store's key. */
export const credentialFor = (route: RestRoute, world: Pick<World, 'key'>): Record<string, string> =>
  route.auth.includes('public') ? {} : route.auth.includes('admin') ? adminHeaders : keyHeaders(world.key);

/** Sends `input` to the route as `world`'s credential (or `headers`), at `storeId`'s URL. */
export function call(
  h: Harness,
  route: SweepRoute,
  storeId: string,
  input: Record<string, unknown>,
  headers: Record<string, string>,
  extra: Record<string, string> = {},
) {
  const { path, body } = requestFor(route, storeId, input);
  return send(h, route.method, path, body, { ...headers, ...extra });
}

/**
 * What is wrong with an error answer, measured against SPEC 7: exactly `{error: {type, message,
 * code, param, request_id}}`, a code of the error table whose status and type it carries, and the
 * request id echoed in X-Request-Id. Empty when it is right.
 */
export function envelopeProblems(res: Res, expect?: { status?: number; code?: string }): string[] {
  const out: string[] = [];
  if (expect?.status !== undefined && res.status !== expect.status) out.push(`status ${res.status}, expected ${expect.status}`);
  const b = res.body;
  if (!b || typeof b !== 'object' || Object.keys(b).join() !== 'error') return [...out, `not an error envelope: ${res.text.slice(0, 200)}`];
  const e = b.error;
  const keys = Object.keys(e ?? {})
    .sort()
    .join();
  if (keys !== 'code,message,param,request_id,type') out.push(`envelope fields ${keys}`);
  const def = errorDef(e.code);
  if (!def) out.push(`code '${e.code}' is not in the error table`);
  else {
    if (def.status !== res.status) out.push(`code ${e.code} is ${def.status} in the table, answered ${res.status}`);
    if (def.type !== e.type) out.push(`type ${e.type}, the table says ${def.type}`);
  }
  if (expect?.code && e.code !== expect.code) out.push(`code ${e.code}, expected ${expect.code}`);
  if (typeof e.message !== 'string' || !e.message) out.push('empty message');
  if (e.param !== null && typeof e.param !== 'string') out.push('param is neither a string nor null');
  if (!e.request_id || e.request_id !== res.headers.get('x-request-id')) out.push('request_id differs from X-Request-Id');
  return out;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The values of another store that must never reach this store's answers: every id in what it
 * made (and its own id), and its long strings (names are shared by the examples, secrets are not).
 */
export function secretsOf(world: Pick<World, 'made' | 'store'>, except: unknown[] = []): string[] {
  const skip = new Set<string>();
  // A resource's `object` ('outbound_webhook_endpoint') names its type, the same in every store
  // and in the API's own description (api_docs): never B's data.
  const walk = (v: unknown, into: (s: string) => void) => {
    if (typeof v === 'string') into(v);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'object' || typeof x !== 'string') walk(x, into);
  };
  walk(except, (s) => {
    skip.add(s);
    for (const m of s.match(UUID) ?? []) skip.add(m.toLowerCase());
  });
  const found = new Set<string>([world.store.id]);
  walk(world.made, (s) => {
    for (const m of s.match(UUID) ?? []) found.add(m.toLowerCase());
    if (s.length >= 24 && !UUID.test(s) && !ISO_TIME.test(s)) found.add(s);
    UUID.lastIndex = 0;
  });
  return [...found].filter((s) => !skip.has(s));
}

/** Which of `secrets` the answer shows. */
export const leaked = (text: string, secrets: string[]) => {
  const lower = text.toLowerCase();
  return secrets.filter((s) => lower.includes(s.toLowerCase()));
};

/** Every uuid-valued leaf of an input, as a path of keys: the places an id of another store can go. */
export function idPaths(input: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof input === 'string') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input) ? [at] : [];
  if (Array.isArray(input)) return input.flatMap((v, i) => idPaths(v, [...at, i]));
  if (input && typeof input === 'object') return Object.entries(input).flatMap(([k, v]) => idPaths(v, [...at, k]));
  return [];
}
export const getAt = (v: any, path: (string | number)[]) => path.reduce((o, k) => o?.[k], v);
export function setAt<T>(v: T, path: (string | number)[], value: unknown): T {
  const copy = structuredClone(v) as any;
  let o = copy;
  for (const k of path.slice(0, -1)) o = o[k];
  o[path.at(-1)!] = value;
  return copy;
}

/** The coverage line every sweep prints, plus what it could not cover and why. */
export function report(sweep: string, counts: Record<string, number>, uncovered: string[] = []) {
  const parts = Object.entries(counts).map(([k, n]) => `${n} ${k}`);
  console.log(`sweep ${sweep}: ${parts.join(', ')}${uncovered.length ? `; not covered: ${uncovered.length}` : ''}`);
  for (const u of uncovered) console.log(`  not covered: ${u}`);
}

/**
 * A model server on 127.0.0.1 that answers every chat with a short text, in the OpenAI and
 * Anthropic wire formats, and the agents configuration pointing at it: agent chats in the sweeps
 * reach a model without leaving the machine.
 */
export function fakeModel() {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      const body = req.method === 'POST' ? await req.json().catch(() => ({})) : {};
      // Whole answers (llm, embeddings, search) are JSON; a structured one is {"label": "ok"}, which the llm examples accept.
      const whole = (r: ReturnType<typeof fakeWhole.json>) =>
        new Response('body' in r ? r.body : '', { headers: { 'content-type': 'application/json' } });
      if (path.endsWith('/embeddings')) return whole(fakeWhole.embeddings((body.input ?? ['']).map(() => [0.6, 0.8, 0])));
      if (path.endsWith('/search'))
        return whole(fakeWhole.searxng([{ title: 'Aprons', url: 'https://shop.example/aprons', content: 'Linen aprons.' }]));
      // Image generations and edits (image_gen) answer one 1x1 PNG, as OpenAI's b64_json.
      if (path.endsWith('/images/generations') || path.endsWith('/images/edits'))
        return Response.json({
          created: 1,
          data: [{ b64_json: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' }],
        });
      // A video creation (video_gen) answers a queued OpenAI video; no job runs in the sweeps, so it is never polled.
      if (req.method === 'POST' && path.endsWith('/videos'))
        return Response.json({
          id: `video_${crypto.randomUUID()}`,
          object: 'video',
          model: 'sora-2',
          status: 'queued',
          progress: 0,
          seconds: '4',
          size: '720x1280',
        });
      // A structured answer fills what the schema requires: a classification gets its first label,
      // enrichment its fields ('ok', [], 0, false by type).
      const labelOf = (schema: any): any => {
        if (schema?.enum) return schema.enum[0];
        if (schema?.type === 'object' || schema?.properties) {
          const out: Record<string, unknown> = {};
          for (const k of new Set(['label', ...(schema.required ?? [])]))
            if (schema.properties?.[k] || k !== 'label' || !schema.properties) out[k] = labelOf(schema.properties?.[k]);
          return out;
        }
        if (schema?.type === 'array') return schema.minItems ? Array.from({ length: schema.minItems }, () => labelOf(schema.items)) : [];
        if (schema?.type === 'number' || schema?.type === 'integer') return schema.minimum ?? 0;
        if (schema?.type === 'boolean') return false;
        return 'ok';
      };
      if (!body.stream && path.endsWith('/messages'))
        return whole(
          body.tool_choice ? fakeWhole.anthropicTool(body.tool_choice.name, labelOf(body.tools?.[0]?.input_schema)) : fakeWhole.anthropic('ok'),
        );
      if (!body.stream)
        return whole(fakeWhole.openai(body.response_format ? JSON.stringify(labelOf(body.response_format.json_schema?.schema)) : 'ok'));
      const reply = openai.text('ok');
      return new Response(('frames' in reply ? reply.frames : []).join(''), { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  const url = `http://127.0.0.1:${server.port}/v1`;
  return {
    env: {
      OPENAI_BASE_URL: url,
      OPENAI_API_KEY: 'sk-sweep',
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: 'ak-sweep',
      SVC_SEARXNG_URL: url,
      // Email: a default sender and a DNS zone, so sends and sending domains work (no relay: mail stays queued).
      SVC_EMAIL_FROM: 'noreply@svc.test',
      SVC_EMAIL_DNS_ZONE: 'dns.svc.test',
      SVC_DNS_RESOLVER: '127.0.0.1:9',
    },
    stop: () => server.stop(true),
  };
}

/** The first scope a route accepts that is `resource:action` (or the first), to grant alone. */
export const narrowest = (accepted: string[]) => accepted.find((s) => s.includes(':')) ?? accepted[0];

/** Every registered scope except those the route accepts (a bare scope grants both kinds). */
export const allBut = (registry: Registry, accepted: string[]) => registry.scopes.filter((s) => !accepted.includes(s));

/**
 * The action's example in `world`, or undefined with the reason recorded: an exempt action
 * (noExample) is listed as not covered, anything else is a problem (a plugin forgot an example, or
 * its example fails).
 */
export async function exampleOr(world: World, ref: ActionRef, problems: string[], uncovered: Set<string>) {
  try {
    return await world.example(ref);
  } catch (e) {
    if (e instanceof Uncoverable && e.exempt) uncovered.add(e.message);
    else if (e instanceof Uncoverable) problems.push(e.message);
    else problems.push(`${ref.plugin.name}.${ref.actionName}: its example failed: ${(e as Error).message}`);
    return undefined;
  }
}

export interface ToolAnswer {
  /** A JSON-RPC error instead of a result (the MCP SDK throws it). */
  protocolError?: string;
  isError: boolean;
  text: string;
  /** The result's structured content, or the parsed error text. */
  body: any;
}

/** tools/call as an MCP client sees it, errors included. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  try {
    const r: any = await client.callTool({ name, arguments: args });
    const text = r.content?.[0]?.text ?? '';
    let body: any = r.structuredContent;
    if (body === undefined)
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    return { isError: Boolean(r.isError), text, body };
  } catch (e) {
    return { protocolError: (e as Error).message, isError: true, text: (e as Error).message, body: undefined };
  }
}

/** What is wrong with a tool error: it must carry a code of the error table (and `code`, if given). */
export function toolErrorProblems(answer: ToolAnswer, code?: string): string[] {
  if (answer.protocolError) return [`JSON-RPC error: ${answer.protocolError}`];
  if (!answer.isError) return [`succeeded: ${answer.text.slice(0, 200)}`];
  const e = answer.body?.error;
  if (!e || typeof e !== 'object') return [`not a tool error: ${answer.text.slice(0, 200)}`];
  const out: string[] = [];
  if (!errorDef(e.code)) out.push(`code '${e.code}' is not in the error table`);
  if (code && e.code !== code) out.push(`code ${e.code}, expected ${code}: ${e.message}`);
  return out;
}

/**
 * tools/list names, without the SDK client's listTools: that one compiles an output validator for
 * every tool (about 40 ms each), which the sweeps do not need.
 */
export async function listToolNames(client: Client): Promise<string[]> {
  const r = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
  return r.tools.map((t) => t.name);
}
