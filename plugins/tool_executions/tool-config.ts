import { Type, type Static } from '@sinclair/typebox';
import { errors, Input, type Ctx } from '../../core/sdk';
import { checkCondition, isTool, saveStoreToolConfig, storeToolConfig, type ToolOverrides } from '../../core/platform';

/**
 * STORE/tool-config (issue 51): the store's tool_overrides, in the shape of an agent's
 * tool-config. Its requires_approval gates every caller of the tool (an agent's own override for
 * that tool wins); requires_confirmation asks the human behind an MCP call (elicitation).
 */
const ActionNames = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 });
const Gated = (description: string) => Type.Optional(Type.Union([Type.Boolean(), ActionNames], { description }));
const Override = Type.Object(
  {
    requires_approval: Gated('true gates every action of the tool for every caller; a list gates those actions.'),
    requires_confirmation: Gated("true asks the MCP client's user to confirm every action; a list, those actions."),
    auto_approve: Type.Optional(ActionNames),
    approval_timeout_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })),
    timeout_action: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('approve'), Type.Literal('escalate')])),
    escalation_group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    approval_conditions: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          { when: Type.String({ minLength: 1, maxLength: 1000 }), message: Type.Optional(Type.String({ maxLength: 500 })) },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const StoreToolConfigPatch = Input({
  tool_overrides: Type.Record(Type.String(), Type.Union([Override, Type.Null()]), {
    description: "Key: a tool (category) name such as products. Each given tool's settings are replaced; null removes them.",
  }),
});
export const StoreToolConfig = Type.Object({
  object: Type.Literal('tool_config'),
  tool_overrides: Type.Record(Type.String(), Override),
});

const view = (overrides: ToolOverrides) => ({
  object: 'tool_config' as const,
  tool_overrides: overrides as Static<typeof StoreToolConfig>['tool_overrides'],
});

export const getStoreToolConfig = async (ctx: Ctx) => view((await storeToolConfig(ctx.db, ctx.store.id)).overrides);

/** PATCH: merges per tool (null removes one); unknown tools and actions are 400s naming them. */
export async function patchStoreToolConfig(ctx: Ctx, input: Static<typeof StoreToolConfigPatch>) {
  const overrides: ToolOverrides = { ...(await storeToolConfig(ctx.db, ctx.store.id)).overrides };
  for (const [tool, o] of Object.entries(input.tool_overrides)) {
    const param = `tool_overrides.${tool}`;
    const plugin = ctx.registry.byName.get(tool);
    if (!plugin || plugin.tool === false) throw errors.validation(`Unknown tool '${tool}' in tool_overrides.`, param);
    if (o === null) {
      delete overrides[tool];
      continue;
    }
    const actions = Object.keys(plugin.actions).filter((a) => isTool(plugin, plugin.actions[a]));
    const lists: [string, unknown][] = [
      ['requires_approval', o.requires_approval],
      ['requires_confirmation', o.requires_confirmation],
      ['auto_approve', o.auto_approve],
      ['approval_conditions', Object.keys(o.approval_conditions ?? {})],
    ];
    for (const [field, list] of lists)
      for (const a of Array.isArray(list) ? list : [])
        if (!actions.includes(a))
          throw errors.validation(`Unknown action '${a}' for tool ${tool}. Valid actions: ${actions.join(', ')}.`, `${param}.${field}`);
    for (const [a, c] of Object.entries(o.approval_conditions ?? {})) await checkCondition(c.when, `${param}.approval_conditions.${a}.when`);
    if (o.timeout_action === 'escalate' && !o.escalation_group)
      throw errors.validation('Invalid escalation_group: timeout_action escalate needs an escalation_group.', `${param}.escalation_group`);
    overrides[tool] = o;
  }
  await saveStoreToolConfig(ctx.db, ctx.store.id, overrides, ctx.clock.now());
  return view(overrides);
}
