import { action, definePlugin, noExample, onFirstCall } from '../../core/sdk';

import { conflict } from '../../core/sdk';
import migration001 from './migrations/001_requires_confirmation.sql' with { type: 'text' };
import type { TSchema } from '@sinclair/typebox';
import {
  CustomTool,
  CustomToolCreate,
  CustomToolList,
  CustomToolUpdate,
  Empty,
  SecretsInput,
  SecretsSet,
  TestA,
  TestB,
  TestResult,
  Tool,
  ToolCreate,
  ToolDeleted,
  ToolId,
  ToolList,
  ToolQuery,
  ToolUpdate,
} from './schemas';
import type { View } from './store';
import { operatorActions } from './operator';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createTool, deleteTool, listTools, render, setSecrets, testTool, updateTool } = onFirstCall(() => import('./store'));
const { disableTool, enableTool, readableTool } = onFirstCall(() => import('./published'));

/** SPEC 9: custom tools came with API version v2026-03-07. */
const SINCE = 'v2026-03-07';
// Enabling is for another store's tool the operator published: public-tools.test.ts covers it.
const PUBLIC_ONLY = noExample("needs another store's tool published by the operator (plugins/custom_tools/public-tools.test.ts)");

/** What differs between the two forms: names, paths, schemas, and how delete and test answer. */
interface Form {
  view: View;
  /** Action name stem: create_<noun>, list_<noun>s ... */
  noun: string;
  path: string;
  label: string;
  create: TSchema;
  update: TSchema;
  one: TSchema;
  list: TSchema;
  deleted: { output: TSchema; status: number; body: (id: string) => unknown };
  test: { input: TSchema; field: 'parameters' | 'input' };
  /** A JavaScript tool to create, for the sweeps. */
  example: Record<string, unknown>;
}

const SHAPE_B: Form = {
  view: 'tool',
  noun: 'tool',
  path: '/tools',
  label: 'Shape B: parameters, execution_type http | javascript, execution_config',
  create: ToolCreate,
  update: ToolUpdate,
  one: Tool,
  list: ToolList,
  deleted: { output: ToolDeleted, status: 200, body: (id) => ({ id, object: 'tool', deleted: true }) },
  test: { input: TestB, field: 'parameters' },
  example: {
    name: 'double_it',
    description: 'Doubles a number.',
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
    execution_type: 'javascript',
    execution_config: { code: 'return (params.n ?? 1) * 2;' },
  },
};

const SHAPE_A: Form = {
  view: 'custom_tool',
  noun: 'custom_tool',
  path: '/custom-tools',
  label: 'Shape A, the gateway form: input_schema, handler {type webhook | javascript, ...}',
  create: CustomToolCreate,
  update: CustomToolUpdate,
  one: CustomTool,
  list: CustomToolList,
  deleted: { output: Empty, status: 204, body: () => null },
  test: { input: TestA, field: 'input' },
  example: {
    name: 'triple_it',
    description: 'Triples a number.',
    input_schema: { type: 'object', properties: { n: { type: 'number' } } },
    handler: { type: 'javascript', code: 'return (input.n ?? 1) * 3;' },
  },
};

/**
 * One form's actions over the shared store of definitions. Changes are REST only (humanOnly): an
 * agent must not rewrite its own tools or lift their approval gates. Writes are `atomic`: they run
 * outside a transaction, since checking JavaScript code waits for a sandbox worker and a test run
 * waits for the tool, and neither may hold the database meanwhile.
 */
function formActions(f: Form) {
  const { view, noun, path } = f;
  return {
    [`create_${noun}`]: action({
      kind: 'write',
      humanOnly: true,
      atomic: true,
      description: `Register a custom tool (${f.label}).`,
      input: f.create,
      output: f.one,
      rest: { method: 'POST', path, status: 201, since: SINCE },
      example: f.example,
      handler: (ctx, input: any) => createTool(ctx.registry.plugins, ctx, view, input),
    }),
    [`list_${noun}s`]: action({
      kind: 'read',
      description: `List the store's custom tools and the tools the operator published to every store (owned false; enabled says whether this store offers it), newest first (${view === 'tool' ? 'Shape B' : 'Shape A'} form).`,
      input: ToolQuery,
      output: f.list,
      rest: { method: 'GET', path, since: SINCE },
      handler: (ctx, input) => listTools(ctx, view, input),
    }),
    [`get_${noun}`]: action({
      kind: 'read',
      description: "Fetch one custom tool (the store's own, or a published one); secret values are never shown, only their names.",
      input: ToolId,
      output: f.one,
      rest: { method: 'GET', path: `${path}/:id`, since: SINCE },
      handler: async (ctx, { id }) => {
        const { tool, access } = await readableTool(ctx, id);
        return render(tool, view, access);
      },
    }),
    [`update_${noun}`]: action({
      kind: 'write',
      humanOnly: true,
      atomic: true,
      description: 'Change a custom tool: the fields given replace the stored ones.',
      input: f.update,
      output: f.one,
      rest: { method: 'PATCH', path: `${path}/:id`, since: SINCE },
      handler: (ctx, input: any) => updateTool(ctx.registry.plugins, ctx, view, input),
    }),
    [`delete_${noun}`]: action({
      kind: 'destructive',
      humanOnly: true,
      atomic: true,
      description: 'Delete a custom tool; agents and MCP clients stop seeing it. Its execution records stay.',
      input: ToolId,
      output: f.deleted.output,
      rest: { method: 'DELETE', path: `${path}/:id`, status: f.deleted.status, since: SINCE },
      handler: async (ctx, { id }) => f.deleted.body((await deleteTool(ctx, id)).id) as any,
    }),
    [`set_${noun}_secrets`]: action({
      kind: 'write',
      humanOnly: true,
      description: "Set the tool's secrets (replaces the whole set): name to value, stored encrypted, referenced as {{NAME}} or {{secrets.NAME}}.",
      input: SecretsInput,
      output: SecretsSet,
      rest: { method: 'PUT', path: `${path}/:id/secrets`, since: SINCE },
      handler: (ctx, input) => setSecrets(ctx, input as Record<string, string>),
    }),
    // A published tool of another store is offered here only once this store opts in (public.ts).
    // Not for agents (humanOnly), which must not widen their own tools.
    [`enable_${noun}`]: action({
      kind: 'write',
      humanOnly: true,
      atomic: true,
      description: "Offer a tool the operator published (owned false) to this store's agents and MCP clients.",
      input: ToolId,
      output: f.one,
      rest: { method: 'POST', path: `${path}/:id/enable`, since: SINCE },
      example: PUBLIC_ONLY,
      handler: async (ctx, { id }) => {
        const { tool, access } = await enableTool(ctx, id);
        return render(tool, view, access);
      },
    }),
    [`disable_${noun}`]: action({
      kind: 'write',
      humanOnly: true,
      atomic: true,
      description:
        "Stop offering a published tool of another store to this store's agents and MCP clients (agents naming it in their tools still use it).",
      input: ToolId,
      output: f.one,
      rest: { method: 'POST', path: `${path}/:id/disable`, since: SINCE },
      example: PUBLIC_ONLY,
      handler: async (ctx, { id }) => {
        const { tool, access } = await disableTool(ctx, id);
        return render(tool, view, access);
      },
    }),
    [`test_${noun}`]: action({
      kind: 'write',
      humanOnly: true,
      external: true,
      description: `Run a tool once on the given ${f.test.field} (no audit record, no approval): success, result, execution_time_ms.`,
      input: f.test.input,
      output: TestResult,
      rest: { method: 'POST', path: `${path}/:id/test`, since: SINCE },
      handler: (ctx, input: any) => testTool(ctx, input.id, input[f.test.field] ?? {}),
    }),
  };
}

/**
 * Custom tools (SPEC 2.5, 4.3, 4.4): HTTP and sandboxed JavaScript tools a store registers for its
 * agents and MCP clients. One store of definitions with two forms over it: STORE/tools (Shape B)
 * and /custom-tools (Shape A, the gateway form, which also takes `Authorization: Bearer <key>`).
 * Ids are shared, so either form reads, changes, tests and sets the secrets of any tool. Running
 * them is core/tools' job (audit log, approval gate); this plugin manages them. Tools the operator
 * published to every store are listed to every store, read-only, and enabled per store (public.ts).
 */
export default definePlugin({
  name: 'custom_tools',
  category: 'platform',
  description: "Register, change, test and delete the store's custom tools (HTTP webhooks or sandboxed JavaScript) and set their secrets.",
  // SPEC 5.1: ai:write covers "manage tools".
  scopes: { read: ['ai', 'ai:read'], write: ['ai', 'ai:write'] },
  resource: 'tool',
  errors: {
    duplicate_name: conflict('Another tool of the store has this name.'),
    tool_published: conflict('The tool is published to every store; withdraw it (visibility private) before changing it.'),
  },
  migrations: [{ id: 'custom_tools/001_requires_confirmation', sql: migration001 }],
  actions: { ...formActions(SHAPE_B), ...formActions(SHAPE_A), ...operatorActions },
});
