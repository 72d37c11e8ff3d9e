import type { Registry } from '../plugins/registry';
import { resolveCall } from '../tools/catalog';
import { names, type StoreToolConfig } from '../tools/store-config';
import { credentialId } from '../plugins/contract';
import { principalOf } from '../tools/executions';
import { storableJson } from '../tools/audit-batch';
import type { ToolCaller, ToolTarget } from '../tools/types';
import { CUSTOM_ACTION } from '../tools/custom';

/**
 * Confirmations by elicitation (issue 51): a tool the store's tool-config marks
 * `requires_confirmation`, or a custom tool declaring it, asks the human behind the MCP call, in form mode, before it runs
 * (not an approver: agents' chats keep approvals only). Accept with confirm true runs it; decline,
 * cancel or false is a tool error, audited as `rejected` with `approval.decision` `declined`. A
 * client without the elicitation capability gets a tool error naming it, and the call never runs.
 */

export interface Confirmation {
  tool: string;
  action: string;
  input: Record<string, unknown>;
}

/** The call a tools/call message makes, when the store asks for its confirmation. */
export function confirmationFor(registry: Registry, config: StoreToolConfig, body: unknown): Confirmation | undefined {
  if (!config.confirms) return undefined;
  const params = (body as { params?: { name?: unknown; arguments?: unknown } })?.params;
  if (typeof params?.name !== 'string') return undefined;
  const args = (params.arguments && typeof params.arguments === 'object' ? params.arguments : {}) as Record<string, unknown>;
  const call = resolveCall(registry, params.name, args);
  if (!call?.actionName) return undefined;
  const override = config.overrides[call.plugin.name];
  if (!override || !names(override.requires_confirmation, call.actionName)) return undefined;
  return { tool: call.plugin.name, action: call.actionName, input: call.input as Record<string, unknown> };
}

/**
 * The confirmation a resolved call needs: a custom tool's own `requires_confirmation`, else the
 * store's tool-config for a built-in action.
 */
export function targetConfirmation(registry: Registry, config: StoreToolConfig, target: ToolTarget, body: unknown): Confirmation | undefined {
  if (target.kind === 'custom')
    return target.tool.requires_confirmation ? { tool: target.tool.name, action: CUSTOM_ACTION, input: target.input } : undefined;
  return confirmationFor(registry, config, body);
}

const money = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : typeof v === 'string' && v ? v : undefined);

/** The call in plain words: "Create product 'Mug' (SKU MUG-1) at 12.50?". */
export function summary(c: Confirmation): string {
  const [verb, ...rest] = c.action.split('_');
  const i = c.input;
  const parts = [`${verb[0].toUpperCase()}${verb.slice(1)} ${rest.join(' ') || c.tool}`];
  if (typeof i.name === 'string') parts.push(`'${i.name}'`);
  if (typeof i.sku === 'string') parts.push(`(SKU ${i.sku})`);
  if (typeof i.id === 'string') parts.push(i.id);
  const price = money(i.price) ?? money((i.pricing_data as Record<string, unknown> | undefined)?.retail) ?? money(i.amount);
  if (price) parts.push(`at ${price}`);
  const others = Object.keys(i).filter((k) => !['name', 'sku', 'id', 'price', 'pricing_data', 'amount'].includes(k));
  return `${parts.join(' ')}${others.length ? ` with ${others.join(', ')}` : ''}? (${c.tool}.${c.action})`;
}

/** The form the client shows: one yes/no. */
export const elicitation = (c: Confirmation) => ({
  method: 'elicitation/create' as const,
  params: {
    mode: 'form' as const,
    message: summary(c),
    requestedSchema: {
      type: 'object' as const,
      properties: { confirm: { type: 'boolean' as const, title: 'Confirm', description: `Run ${c.tool}.${c.action} now?` } },
      required: ['confirm'],
    },
  },
});

/** A declined confirmation's audit record: rejected, decision declined (the tool never ran). */
export async function auditDeclined(caller: Omit<ToolCaller, 'source'>, c: Confirmation, how: string, message: string) {
  const at = caller.clock.now();
  const output = { error: { type: 'permission_error' as const, code: 'approval_rejected', message, param: null } };
  await caller.db.query(
    `INSERT INTO tool_executions (id, store_id, tool, action, source, status, input, output, approval, principal, created_at, completed_at)
     VALUES ($1, $2, $3, $4, 'mcp', 'rejected', $5::text::jsonb, $6, $7::text::jsonb, $8::text::jsonb, $9, $9)`,
    [
      Bun.randomUUIDv7(),
      caller.store.id,
      c.tool,
      c.action,
      storableJson(c.input),
      JSON.stringify(output),
      JSON.stringify({
        gated_by: 'confirmation',
        message: summary(c),
        timeout_minutes: 0,
        timeout_action: 'reject',
        escalation_group: null,
        group: 'default',
        escalated: false,
        decision: 'declined',
        decided_at: at.toISOString(),
        decided_by: credentialId(caller.principal),
        comment: null,
        reason: how,
      }),
      JSON.stringify(principalOf(caller.principal)),
      at,
    ],
  );
  return output.error;
}
