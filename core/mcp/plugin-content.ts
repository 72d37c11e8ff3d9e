import {
  ErrorCode,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { acceptedScopes, type McpPromptDef, type McpResourceDef, type PluginDef, type Principal } from '../plugins/contract';
import type { Registry } from '../plugins/registry';
import { hasScope } from '../plugins/invoke';
import { protocolError } from './results';

/**
 * Resources and prompts a plugin declares in `mcpContent` (plugins/README.md, "MCP resources and
 * prompts"), served beside svc's records and prompts to credentials holding the plugin's read
 * scope. Nothing is stored: each read or get runs the declaration.
 */

const isTemplate = (uri: string) => uri.includes('{');

/** The declarations this principal may see, with their plugin. */
function visible<T>(registry: Registry, principal: Principal, pick: (p: PluginDef) => T[] | undefined) {
  return registry.plugins.flatMap((p) => {
    const defs = pick(p);
    return defs?.length && hasScope(principal.scopes, acceptedScopes(p, 'read')) ? defs : [];
  });
}
const resourcesOf = (registry: Registry, principal: Principal) => visible(registry, principal, (p) => p.mcpContent?.resources);
const promptsOf = (registry: Registry, principal: Principal) => visible(registry, principal, (p) => p.mcpContent?.prompts);

const describe = (r: McpResourceDef) => ({ name: r.name, title: r.title, description: r.description, mimeType: r.mimeType });

export const pluginResources = (registry: Registry, principal: Principal): Resource[] =>
  resourcesOf(registry, principal)
    .filter((r) => !isTemplate(r.uri))
    .map((r) => ({ uri: r.uri, ...describe(r) }));

export const pluginTemplates = (registry: Registry, principal: Principal): ResourceTemplate[] =>
  resourcesOf(registry, principal)
    .filter((r) => isTemplate(r.uri))
    .map((r) => ({ uriTemplate: r.uri, ...describe(r) }));

const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/** The declaration a URI names, with a template's parts; undefined when no plugin serves it. */
export function pluginResourceFor(registry: Registry, principal: Principal, uri: string) {
  for (const def of resourcesOf(registry, principal)) {
    if (!isTemplate(def.uri)) {
      if (def.uri === uri) return { def, params: {} };
      continue;
    }
    const names: string[] = [];
    const pattern = def.uri
      .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
      .map((part) => (/^\{.+\}$/.test(part) ? (names.push(part.slice(1, -1)), '([^/?#]+)') : escape(part)))
      .join('');
    const m = new RegExp(`^${pattern}$`).exec(uri);
    if (m) return { def, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  return undefined;
}

export async function readPluginResource(found: NonNullable<ReturnType<typeof pluginResourceFor>>, uri: string): Promise<ReadResourceResult> {
  const body = await found.def.read(found.params);
  return { contents: [{ uri, mimeType: found.def.mimeType, ...body }] };
}

export const pluginPrompts = (registry: Registry, principal: Principal): Prompt[] =>
  promptsOf(registry, principal).map((p) => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments }));

const promptNamed = (registry: Registry, principal: Principal, name: string): McpPromptDef | undefined =>
  promptsOf(registry, principal).find((p) => p.name === name);

/** prompts/get of a plugin's prompt; undefined when no plugin has one by that name. */
export async function getPluginPrompt(
  registry: Registry,
  principal: Principal,
  name: string,
  args: Record<string, string> = {},
): Promise<GetPromptResult | undefined> {
  const def = promptNamed(registry, principal, name);
  if (!def) return undefined;
  const missing = def.arguments?.find((a) => a.required && typeof args[a.name] !== 'string');
  if (missing) throw protocolError(ErrorCode.InvalidParams, `Prompt ${name} needs the argument '${missing.name}'.`);
  return { description: def.description, messages: await def.get(args) };
}

/** completion/complete for a prompt's argument: its plugin's suggestions (at most 100), else none. */
export function completePrompt(registry: Registry, principal: Principal, name: string, argument: string, value: string) {
  const def = promptNamed(registry, principal, name);
  const values = def?.complete?.(argument, value).slice(0, 100) ?? [];
  return { completion: { values, total: values.length, hasMore: false } };
}
