import { Type, type Static } from '@sinclair/typebox';
import { type Ctx } from '../../core/sdk';
import { isTool } from '../../core/platform';
import { errors } from '../../core/sdk';
import { Input, Timestamp, Uuid } from '../../core/sdk';
import { iso } from '../../core/sdk';
import { CUSTOM_ACTION } from '../../core/platform';
import { checkCondition, type ToolOverrides } from '../../core/platform';
import { agentRow, knownTools, type AgentDeps } from './store';

const ActionNames = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 });
const Override = Type.Object(
  {
    requires_approval: Type.Optional(
      Type.Union([Type.Boolean(), ActionNames], { description: 'true gates every action; a list gates those actions.' }),
    ),
    auto_approve: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, description: 'Actions never gated.' })),
    approval_conditions: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          {
            when: Type.String({
              minLength: 1,
              maxLength: 1000,
              description: 'A JavaScript expression over `input`, e.g. `input.amount > 500`; true gates the call.',
            }),
            message: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        { description: 'Key: action name.' },
      ),
    ),
    approval_timeout_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
    timeout_action: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('approve'), Type.Literal('escalate')])),
    escalation_group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const ToolConfigPatch = Input({
  id: Uuid('Agent id'),
  tool_overrides: Type.Record(Type.String(), Type.Union([Override, Type.Null()]), {
    description: "Key: tool name (a category such as orders, or a custom tool). Each given tool's settings are replaced; null removes them.",
  }),
});
export const ToolConfig = Type.Object({
  object: Type.Literal('agent_tool_config'),
  agent_id: Uuid(),
  tool_overrides: Type.Record(Type.String(), Override),
  updated_at: Timestamp(),
});

const view = (row: Record<string, any>) => ({
  object: 'agent_tool_config' as const,
  agent_id: row.id,
  tool_overrides: (row.tool_config?.tool_overrides ?? {}) as ToolOverrides,
  updated_at: iso(row.updated_at),
});

export const getToolConfig = async (ctx: Ctx, { id }: { id: string }) => view(await agentRow(ctx, id));

/** Checks one tool's override: the tool exists, its actions exist, its conditions compile. */
async function checkOverride(tool: string, o: Static<typeof Override>, builtinActions: string[] | undefined) {
  const param = `tool_overrides.${tool}`;
  const actions = builtinActions ?? [CUSTOM_ACTION];
  const named: [string, string[]][] = [
    ['requires_approval', Array.isArray(o.requires_approval) ? o.requires_approval : []],
    ['auto_approve', o.auto_approve ?? []],
    ['approval_conditions', Object.keys(o.approval_conditions ?? {})],
  ];
  for (const [field, list] of named)
    for (const a of list)
      if (!actions.includes(a))
        throw errors.validation(`Unknown action '${a}' for tool ${tool}. Valid actions: ${actions.join(', ')}.`, `${param}.${field}`);
  for (const [a, c] of Object.entries(o.approval_conditions ?? {})) await checkCondition(c.when, `${param}.approval_conditions.${a}.when`);
  if (o.timeout_action === 'escalate' && !o.escalation_group)
    throw errors.validation('Invalid escalation_group: timeout_action escalate needs an escalation_group.', `${param}.escalation_group`);
}

/** PATCH /agents/:id/tool-config (SPEC 4.5): merges per tool; null removes a tool's overrides. */
export async function patchToolConfig(deps: AgentDeps, ctx: Ctx, input: Static<typeof ToolConfigPatch>) {
  const row = await agentRow(ctx, input.id);
  const known = await knownTools(deps, ctx);
  const overrides: ToolOverrides = { ...(row.tool_config?.tool_overrides ?? {}) };
  for (const [tool, o] of Object.entries(input.tool_overrides)) {
    if (!known.all.has(tool)) throw errors.validation(`Unknown tool '${tool}' in tool_overrides.`, `tool_overrides.${tool}`);
    if (o === null) {
      delete overrides[tool];
      continue;
    }
    const plugin = deps.plugins().find((p) => p.name === tool);
    const actions = plugin && Object.keys(plugin.actions).filter((a) => isTool(plugin, plugin.actions[a]));
    await checkOverride(tool, o, actions);
    overrides[tool] = o;
  }
  const [updated] = await ctx.db.query(
    'UPDATE agents SET tool_config = $3::text::jsonb, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *',
    [ctx.store.id, row.id, JSON.stringify({ tool_overrides: overrides }), ctx.clock.now()],
  );
  return view(updated);
}
