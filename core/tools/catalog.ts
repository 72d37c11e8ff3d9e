import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { acceptedScopes, isTool, type Principal } from '../plugins/contract';
import { toolOutputOf } from './raw-answers';
import { hasScope } from '../plugins/invoke';
import type { CustomTool } from './types';
import { flatName, type Registry } from '../plugins/registry';
import { actionAnnotations, groupAnnotations, iconsOf, titleOf } from './presentation';

/** Custom tools are listed under this toolset (the plugin that manages them). */
export const CUSTOM_TOOLSET = 'custom_tools';
/** The scopes that allow calling custom tools: they act on the outside world for the store. */
export const CUSTOM_TOOL_SCOPES = ['ai', 'ai:write'];

/** How a connection sees the catalog (SPEC 4.10): chosen per connection, kept in its session. */
export interface ToolOptions {
  /** `grouped`: one tool per category with an `action` argument; `flat`: one tool per action. */
  mode: 'grouped' | 'flat';
  /** Only these categories (undefined: all). */
  toolsets?: string[];
  /** List and allow read actions only. */
  readOnly: boolean;
  /** Set by logging/setLevel: the least severe log notification this connection wants. */
  logLevel?: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
  /** The client's elicitation capability, as declared at initialize (absent: none). */
  elicitation?: { form: boolean; url: boolean };
  /** The client declared the sampling capability at initialize (ctx.mcp.sample). */
  sampling?: boolean;
  /** The client declared MCP Apps (io.modelcontextprotocol/ui) at initialize: views and app tools (core/mcp/apps.ts). */
  ui?: boolean;
}

export const DISCOVER_TOOLS = 'discover_tools';
/** MCP tasks (2025-11-25): every tool may be called as a task (core/mcp/tasks.ts), discover_tools not. */
const TASKS_OPTIONAL = { taskSupport: 'optional' } as const;
const MAX_NAME = 64;

/** Strips TypeBox's symbol keys: MCP clients get plain JSON Schema. */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema));

export { flatName };

/** The actions this principal may call under these options, by plugin. */
export function visibleActions(registry: Registry, principal: Principal, opts: ToolOptions) {
  return registry.plugins
    .filter((p) => p.tool !== false && (!opts.toolsets || opts.toolsets.includes(p.name)))
    .map((plugin) => ({
      plugin,
      actions: Object.entries(plugin.actions).filter(
        // A streaming action answers with a Response, not a tool result; humanOnly ones are not tools.
        ([, a]) => isTool(plugin, a) && (!opts.readOnly || a.kind === 'read') && hasScope(principal.scopes, acceptedScopes(plugin, a.kind)),
      ),
    }))
    .filter((g) => g.actions.length > 0);
}

/**
 * The store's usable custom tools this connection may call (not on read-only connections: they act
 * outside svc). `toolsets` selects them all by the custom_tools category, or one by its own name
 * (an agent's `tools` may list custom tool names, SPEC 4.2).
 */
export function visibleCustomTools(custom: CustomTool[], principal: Principal, opts: ToolOptions): CustomTool[] {
  if (opts.readOnly || !hasScope(principal.scopes, CUSTOM_TOOL_SCOPES)) return [];
  const { toolsets } = opts;
  if (!toolsets || toolsets.includes(CUSTOM_TOOLSET)) return custom;
  return custom.filter((t) => toolsets.includes(t.name));
}

/** A custom tool as an MCP tool: its own name and input schema, in either listing mode. */
const customTool = (t: CustomTool): Tool => ({
  name: t.name,
  title: titleOf(t.name),
  description: t.description,
  inputSchema: { ...t.input_schema, type: 'object' } as Tool['inputSchema'],
  annotations: { title: t.name, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  execution: TASKS_OPTIONAL,
});

/** tools/list: grouped or flat, the store's custom tools, and discover_tools; deterministic order. */
export function listTools(registry: Registry, principal: Principal, opts: ToolOptions, custom: CustomTool[] = []): Tool[] {
  const groups = visibleActions(registry, principal, opts);
  const tools: Tool[] = [];
  for (const { plugin, actions } of groups) {
    if (opts.mode === 'flat') {
      for (const [name, a] of actions) {
        const input = plain(a.input);
        tools.push({
          name: flatName(plugin, name).slice(0, MAX_NAME),
          title: `${titleOf(plugin.name)}: ${titleOf(name).toLowerCase()}`,
          description: a.description,
          inputSchema: { ...input, type: 'object' },
          outputSchema: { ...plain(toolOutputOf(a)), type: 'object' },
          annotations: { title: `${plugin.name}: ${name}`, ...actionAnnotations(name, a) },
          icons: iconsOf(plugin),
          execution: TASKS_OPTIONAL,
        });
      }
      continue;
    }
    const names = actions.map(([n]) => n);
    tools.push({
      name: plugin.name,
      title: titleOf(plugin.name),
      description:
        `${plugin.description ?? plugin.name} Actions: ` +
        actions.map(([n, a]) => `${n} (${a.description})`).join('; ') +
        ` Pass the action's arguments beside "action"; ${DISCOVER_TOOLS} gives each action's full input schema.`,
      inputSchema: {
        type: 'object',
        properties: { action: { type: 'string', enum: names, description: 'Which action to run.' } },
        required: ['action'],
        additionalProperties: true,
      },
      annotations: { title: plugin.name, ...groupAnnotations(actions) },
      icons: iconsOf(plugin),
      execution: TASKS_OPTIONAL,
    });
  }
  tools.push(...visibleCustomTools(custom, principal, opts).map(customTool));
  tools.push({
    name: DISCOVER_TOOLS,
    title: 'Discover tools',
    description: 'Lists the tools and their actions; with tool_name, returns the full input schema of each action of that tool.',
    inputSchema: {
      type: 'object',
      properties: { tool_name: { type: 'string', description: "A tool name, e.g. products, or one action's flat name, e.g. products_get_product." } },
      additionalProperties: false,
    },
    annotations: { title: 'Discover tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    execution: { taskSupport: 'forbidden' },
  });
  return tools;
}

/** discover_tools: the actions of one tool with full schemas, or an index of all tools. */
export function discover(registry: Registry, principal: Principal, opts: ToolOptions, toolName?: string, custom: CustomTool[] = []) {
  const groups = visibleActions(registry, principal, opts);
  const customs = visibleCustomTools(custom, principal, opts);
  if (!toolName)
    return {
      tools: [
        ...groups.map(({ plugin, actions }) => ({
          name: plugin.name,
          title: titleOf(plugin.name),
          category: plugin.category,
          actions: actions.map(([n]) => n),
        })),
        ...customs.map((t) => ({ name: t.name, category: t.category ?? 'custom', actions: ['run'] })),
      ],
    };
  const own = customs.find((t) => t.name === toolName);
  if (own)
    return {
      tool: own.name,
      category: own.category ?? 'custom',
      actions: [
        {
          action: 'run',
          flat_name: own.name,
          kind: 'write',
          description: own.description,
          input_schema: own.input_schema,
          required_scopes: CUSTOM_TOOL_SCOPES,
          annotations: customTool(own).annotations,
        },
      ],
    };
  // A category (`products`), or one action by its flat name (`products_get_product`), whichever
  // listing mode the connection uses: clients and models use both forms.
  let group = groups.find((g) => g.plugin.name === toolName);
  let only: string | undefined;
  for (const g of group ? [] : groups) {
    only = g.actions.find(([name]) => flatName(g.plugin, name) === toolName)?.[0];
    if (only) {
      group = g;
      break;
    }
  }
  if (!group) return undefined;
  return {
    tool: group.plugin.name,
    title: titleOf(group.plugin.name),
    category: group.plugin.category,
    actions: group.actions
      .filter(([name]) => !only || name === only)
      .map(([name, a]) => ({
        action: name,
        flat_name: flatName(group.plugin, name),
        kind: a.kind,
        description: a.description,
        input_schema: plain(a.input),
        required_scopes: acceptedScopes(group.plugin, a.kind),
        annotations: actionAnnotations(name, a),
        ...(a.errors?.length ? { error_codes: a.errors } : {}),
      })),
  };
}

/**
 * Resolves a tools/call name and arguments to one plugin action and its input: the grouped form
 * `{name: "products", arguments: {action: "get_product", id}}` or the flat `products_get_product`.
 * Undefined when no such tool exists (a protocol error, -32602).
 */
export function resolveCall(registry: Registry, name: string, args: Record<string, unknown>) {
  const grouped = registry.byName.get(name);
  if (grouped && grouped.tool !== false) {
    const { action, ...input } = args;
    return { plugin: grouped, actionName: typeof action === 'string' ? action : undefined, input };
  }
  const flat = registry.byFlatName.get(name);
  if (flat && flat.plugin.tool !== false) return { plugin: flat.plugin, actionName: flat.actionName, input: args };
  return undefined;
}
