import { Type, type Static } from '@sinclair/typebox';
import { action, noExample, Input, Timestamp, Uuid } from '../../core/sdk';
import { adminToolView, publishTool, toolById, toolsChanged, unpublishTool } from '../../core/platform';

/**
 * The operator's side of public tools (issue 20 §2): a store cannot publish a tool to every other
 * store on its own say. With the admin token the operator reviews any store's tool, publishes it
 * (each store still opts in) or withdraws it (every store's opt-in is dropped).
 */
const AdminTool = Type.Object({
  object: Type.Literal('tool'),
  id: Uuid(),
  store_id: Uuid('The store that owns the tool.'),
  name: Type.String(),
  description: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  parameters: Type.Record(Type.String(), Type.Unknown()),
  execution_type: Type.String(),
  execution_config: Type.Record(Type.String(), Type.Unknown()),
  visibility: Type.Union([Type.Literal('private'), Type.Literal('public')]),
  requires_plan: Type.String(),
  requires_approval: Type.Boolean(),
  requires_confirmation: Type.Boolean(),
  secret_names: Type.Array(Type.String()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
const AnyToolId = Input({ id: Uuid("Any store's tool id") });
// A tool's config is one of two shapes (HTTP or code): documented here as an object.
const view = (t: Parameters<typeof adminToolView>[0]) => adminToolView(t) as unknown as Static<typeof AdminTool>;
const operator = { auth: 'admin', scope: 'global' } as const;
const anyStoresTool = noExample("acts on any store's tool by id (plugins/custom_tools/public-tools.test.ts)");

export const operatorActions = {
  review_tool: action({
    kind: 'read',
    description: "Fetch any store's custom tool for review: its definition (URL, headers with secret references, code) and the owning store.",
    input: AnyToolId,
    output: AdminTool,
    rest: { method: 'GET', path: '/v1/admin/tools/:id', ...operator },
    example: anyStoresTool,
    handler: async (ctx, { id }) => view(await toolById(ctx.db, id)),
  }),
  publish_tool: action({
    kind: 'write',
    description: 'Publish a tool to every store: each store still enables it before its agents and MCP clients are offered it.',
    input: AnyToolId,
    output: AdminTool,
    rest: { method: 'POST', path: '/v1/admin/tools/:id/publish', ...operator },
    errors: ['duplicate_name'],
    example: anyStoresTool,
    handler: async (ctx, { id }) => {
      const tool = await publishTool(ctx.db, ctx.clock, id);
      ctx.afterCommit(() => toolsChanged.emit(tool.store_id));
      return view(tool);
    },
  }),
  unpublish_tool: action({
    kind: 'write',
    description: 'Withdraw a published tool from every store; the stores that had enabled it lose it now.',
    input: AnyToolId,
    output: AdminTool,
    rest: { method: 'POST', path: '/v1/admin/tools/:id/unpublish', ...operator },
    example: anyStoresTool,
    handler: async (ctx, { id }) => {
      const { tool, stores } = await unpublishTool(ctx.db, ctx.clock, id);
      ctx.afterCommit(() => {
        for (const storeId of [tool.store_id, ...stores]) toolsChanged.emit(storeId);
      });
      return view(tool);
    },
  }),
};
