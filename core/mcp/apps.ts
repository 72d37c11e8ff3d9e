/**
 * MCP Apps (`io.modelcontextprotocol/ui`, stable 2026-01-26) on svc's MCP server, for clients that
 * declare the extension at initialize (the session keeps `ui: true`): the plugins' `mcpApps` views
 * as `ui://` resources (text/html;profile=mcp-app, self-contained, strict CSP: no network, no
 * frames), tools linked to them by `_meta.ui.resourceUri`, and the tools only such clients get.
 * A client without the extension sees exactly the tools it saw before: nothing here runs for it.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpApps, PluginDef } from '../plugins/contract';
import type { Registry } from '../plugins/registry';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const UI_MIME = 'text/html;profile=mcp-app';

const isRecord = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether an initialize request's client declares MCP Apps (and, if it lists MIME types, ours). */
export function declaresUi(initializeParams: unknown): boolean {
  const ext = isRecord(initializeParams) && isRecord(initializeParams.capabilities) ? initializeParams.capabilities.extensions : undefined;
  const ui = isRecord(ext) ? ext[UI_EXTENSION] : undefined;
  if (!isRecord(ui)) return false;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(UI_MIME);
}

const appsOf = (registry: Registry) => registry.plugins.filter((p): p is PluginDef & { mcpApps: McpApps } => !!p.mcpApps);

/** Every view, for resources/list. */
export function uiResources(registry: Registry) {
  return appsOf(registry).flatMap((p) => p.mcpApps.views.map((v) => ({ uri: v.uri, name: v.name, description: v.description, mimeType: UI_MIME })));
}

/**
 * resources/read of a view: its HTML with the host-enforced CSP left empty (connect, resources,
 * frames, base URI: none), so the view reaches nothing outside the data the host hands it.
 */
export function readUiResource(registry: Registry, uri: string) {
  const view = appsOf(registry)
    .flatMap((p) => p.mcpApps.views)
    .find((v) => v.uri === uri);
  if (!view) return undefined;
  return {
    contents: [
      {
        uri: view.uri,
        mimeType: UI_MIME,
        text: view.html,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } },
      },
    ],
  };
}

const uiMeta = (uri: string) => ({ ui: { resourceUri: uri, visibility: ['model', 'app'] } });

/**
 * The tool list a UI client gets: the same tools, those a view renders carrying
 * `_meta.ui.resourceUri` (grouped: the category; flat: its linked actions), and the app-only tools.
 */
export function withUiTools(registry: Registry, tools: Tool[], mode: 'grouped' | 'flat', toolsets?: string[]): Tool[] {
  const apps = appsOf(registry);
  const links = new Map<string, string>();
  for (const p of apps)
    for (const l of p.mcpApps.links) {
      if (mode === 'grouped') links.set(l.tool, l.view);
      else for (const a of l.actions) links.set(`${l.tool}_${a}`, l.view);
    }
  const out: Tool[] = tools.map((t) => (links.has(t.name) ? { ...t, _meta: { ...(t._meta ?? {}), ...uiMeta(links.get(t.name)!) } } : t));
  for (const p of apps)
    for (const extra of p.mcpApps.tools ?? []) {
      if (toolsets && !toolsets.includes(extra.name)) continue;
      const names = Object.keys(extra.actions);
      const meta = extra.view ? { _meta: uiMeta(extra.view) } : {};
      if (mode === 'grouped') {
        out.push({
          name: extra.name,
          description: `${extra.description} Actions: ${names.join(', ')}.`,
          inputSchema: { type: 'object', properties: { action: { type: 'string', enum: names } }, required: ['action'], additionalProperties: true },
          annotations: { title: extra.name, readOnlyHint: true },
          ...meta,
        });
        continue;
      }
      for (const name of names) {
        const action = p.actions[extra.actions[name]];
        out.push({
          name: `${extra.name}_${name}`,
          description: action?.description ?? extra.description,
          inputSchema: { ...JSON.parse(JSON.stringify(action?.input ?? {})), type: 'object' },
          annotations: { title: `${extra.name}: ${name}`, readOnlyHint: action?.kind === 'read' },
          ...meta,
        });
      }
    }
  return out;
}

/** The plugin action an app-only tool call names (`cart` + action `quote`, or `cart_quote`), with its input. */
export function uiToolTarget(registry: Registry, name: string, args: Record<string, unknown>, mode: 'grouped' | 'flat') {
  for (const p of appsOf(registry))
    for (const extra of p.mcpApps.tools ?? []) {
      let action: string | undefined;
      let input = args;
      if (mode === 'grouped' && name === extra.name) {
        const { action: a, ...rest } = args;
        action = typeof a === 'string' ? extra.actions[a] : undefined;
        input = rest;
        if (!action)
          return {
            plugin: p,
            error: `Unknown action '${String(a ?? '')}' for tool ${name}. Valid actions: ${Object.keys(extra.actions).join(', ')}.`,
          };
      } else if (mode === 'flat' && name.startsWith(`${extra.name}_`)) action = extra.actions[name.slice(extra.name.length + 1)];
      if (action && p.actions[action]) return { plugin: p, actionName: action, action: p.actions[action], input };
    }
  return undefined;
}
