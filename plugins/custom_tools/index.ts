import { action, definePlugin, type PluginDef } from '../../core/plugins/contract';
import {
  CustomTool, CustomToolCreate, CustomToolList, CustomToolUpdate, Empty, SecretsInput, SecretsSet, TestA, TestB, TestResult,
  Tool, ToolCreate, ToolDeleted, ToolId, ToolList, ToolQuery, ToolUpdate,
} from './schemas';
import { createTool, deleteTool, listTools, render, setSecrets, testTool, toolRow, updateTool } from './store';

/**
 * Custom tools (SPEC 2.5, 4.3, 4.4): HTTP and sandboxed JavaScript tools a store registers for its
 * agents and MCP clients. One store of definitions with two forms over it: STORE/tools (Shape B)
 * and /custom-tools (Shape A, the gateway form, which also takes `Authorization: Bearer <key>`).
 * Ids are shared, so either form reads, changes, tests and sets the secrets of any tool. Running
 * them is core/tools' job (audit log, approval gate); this plugin manages them. Changes are REST
 * only (humanOnly): an agent must not rewrite its own tools or lift their approval gates.
 */
export function customToolsPlugin(opts: { plugins: () => PluginDef[] }) {
  const p = () => opts.plugins();
  return definePlugin({
    name: 'custom_tools',
    category: 'platform',
    description: 'Register, change, test and delete the store\'s custom tools (HTTP webhooks or sandboxed JavaScript) and set their secrets.',
    // SPEC 5.1: ai:write covers "manage tools".
    scopes: { read: ['ai', 'ai:read'], write: ['ai', 'ai:write'] },
    actions: {
      create_tool: action({
        kind: 'write',
        humanOnly: true,
        // One INSERT, after a compile check of JavaScript code in the sandbox pool, which may have to wait
        // for a worker: outside a transaction, so the wait holds no connection (on the embedded
        // database, the only one).
        atomic: true,
        description: 'Register a tool (Shape B): name, description, parameters (JSON Schema), execution_type http or javascript, execution_config.',
        input: ToolCreate,
        output: Tool,
        rest: { method: 'POST', path: '/tools', status: 201 },
        handler: (ctx, input) => createTool(p(), ctx, 'tool', input),
      }),
      list_tools: action({
        kind: 'read',
        description: 'List the store\'s custom tools, newest first (Shape B form).',
        input: ToolQuery,
        output: ToolList,
        rest: { method: 'GET', path: '/tools' },
        handler: (ctx, input) => listTools(ctx, 'tool', input),
      }),
      get_tool: action({
        kind: 'read',
        description: 'Fetch one custom tool (Shape B form); secret values are never shown, only their names.',
        input: ToolId,
        output: Tool,
        rest: { method: 'GET', path: '/tools/:id' },
        handler: async (ctx, { id }) => render(await toolRow(ctx, id), 'tool'),
      }),
      update_tool: action({
        kind: 'write',
        humanOnly: true,
        // A read, the compile check (as create_tool), then one guarded UPDATE: outside a transaction.
        atomic: true,
        description: 'Change a custom tool (Shape B form); fields given replace the stored ones.',
        input: ToolUpdate,
        output: Tool,
        rest: { method: 'PATCH', path: '/tools/:id' },
        handler: (ctx, input) => updateTool(p(), ctx, 'tool', input),
      }),
      delete_tool: action({
        kind: 'destructive',
        humanOnly: true,
        atomic: true, // one DELETE: committed before the MCP clients are told
        description: 'Delete a custom tool; agents and MCP clients stop seeing it. Its execution records stay.',
        input: ToolId,
        output: ToolDeleted,
        rest: { method: 'DELETE', path: '/tools/:id' },
        handler: async (ctx, { id }) => ({ id: (await deleteTool(ctx, id)).id, object: 'tool', deleted: true }),
      }),
      set_tool_secrets: action({
        kind: 'write',
        humanOnly: true,
        description: 'Set the tool\'s secrets (replaces the whole set): name to value, stored encrypted, referenced as {{NAME}} or {{secrets.NAME}}.',
        input: SecretsInput,
        output: SecretsSet,
        rest: { method: 'PUT', path: '/tools/:id/secrets' },
        handler: (ctx, input) => setSecrets(ctx, input as Record<string, string>),
      }),
      test_tool: action({
        kind: 'write',
        humanOnly: true,
        // One SELECT, then the run: outside a transaction, so a slow endpoint or a runaway script
        // (up to 10 s) holds no connection (on the embedded database, the only one).
        atomic: true,
        description: 'Run a tool once on the given parameters (no audit record, no approval): success, result, execution_time_ms.',
        input: TestB,
        output: TestResult,
        rest: { method: 'POST', path: '/tools/:id/test' },
        handler: (ctx, input) => testTool(ctx, input.id, input.parameters ?? {}),
      }),
      register_custom_tool: action({
        kind: 'write',
        humanOnly: true,
        atomic: true, // as create_tool
        description: 'Register a tool (Shape A): name, description, input_schema, handler {type webhook|javascript, ...}.',
        input: CustomToolCreate,
        output: CustomTool,
        rest: { method: 'POST', path: '/custom-tools', status: 201 },
        handler: (ctx, input) => createTool(p(), ctx, 'custom_tool', input),
      }),
      list_custom_tools: action({
        kind: 'read',
        description: 'List the store\'s custom tools, newest first (Shape A form).',
        input: ToolQuery,
        output: CustomToolList,
        rest: { method: 'GET', path: '/custom-tools' },
        handler: (ctx, input) => listTools(ctx, 'custom_tool', input),
      }),
      get_custom_tool: action({
        kind: 'read',
        description: 'Fetch one custom tool (Shape A form).',
        input: ToolId,
        output: CustomTool,
        rest: { method: 'GET', path: '/custom-tools/:id' },
        handler: async (ctx, { id }) => render(await toolRow(ctx, id), 'custom_tool'),
      }),
      update_custom_tool: action({
        kind: 'write',
        humanOnly: true,
        atomic: true, // as update_tool
        description: 'Change a custom tool (Shape A form): a partial definition.',
        input: CustomToolUpdate,
        output: CustomTool,
        rest: { method: 'PATCH', path: '/custom-tools/:id' },
        handler: (ctx, input) => updateTool(p(), ctx, 'custom_tool', input),
      }),
      delete_custom_tool: action({
        kind: 'destructive',
        humanOnly: true,
        atomic: true, // as delete_tool
        description: 'Delete a custom tool (answers 204 with no body).',
        input: ToolId,
        output: Empty,
        rest: { method: 'DELETE', path: '/custom-tools/:id', status: 204 },
        handler: async (ctx, { id }) => (await deleteTool(ctx, id), null),
      }),
      set_custom_tool_secrets: action({
        kind: 'write',
        humanOnly: true,
        description: 'Set the tool\'s secrets (same as set_tool_secrets).',
        input: SecretsInput,
        output: SecretsSet,
        rest: { method: 'PUT', path: '/custom-tools/:id/secrets' },
        handler: (ctx, input) => setSecrets(ctx, input as Record<string, string>),
      }),
      test_custom_tool: action({
        kind: 'write',
        humanOnly: true,
        atomic: true, // as test_tool
        description: 'Run a tool once on the given input (no audit record, no approval).',
        input: TestA,
        output: TestResult,
        rest: { method: 'POST', path: '/custom-tools/:id/test' },
        handler: (ctx, input) => testTool(ctx, input.id, input.input ?? {}),
      }),
    },
  });
}
