import { action, actionFor, actorOf, definePlugin, Input, type Ctx, type ExampleKit } from '../../core/sdk';
import { callTool, resolveTarget } from '../../core/platform';
import { errors, fail, forbidden } from '../../core/sdk';
import { approveExecution, rejectExecution } from '../../core/platform';
import { executionRow, executionStream, queryExecutions, toExecution } from '../../core/platform';
import { Type } from '@sinclair/typebox';
import { getStoreToolConfig, patchStoreToolConfig, StoreToolConfig, StoreToolConfigPatch } from './tool-config';
import { ApproveInput, Execution, ExecutionId, ExecutionList, ExecutionQuery, RejectInput, StreamEvent, StreamQuery } from './schemas';

const ExecutionsConfig = Type.Object({
  stream_keep_alive_ms: Type.Integer({
    minimum: 10,
    default: 15_000,
    description: 'How often an idle execution stream sends a keep-alive comment.',
  }),
});
/** `action` whose handlers read this plugin's settings, typed. */
const configured = actionFor(ExecutionsConfig);

const instant = (value: string | undefined, param: string) => {
  if (value === undefined) return undefined;
  if (Number.isNaN(new Date(value).getTime())) throw errors.validation(`Invalid ${param}: '${value}' is not a date.`, param);
  return value;
};

/**
 * A call waiting for approval, for the sweeps: a custom tool that requires approval, called once
 * the way an MCP client would.
 */
async function heldCall({ make, ctx }: ExampleKit) {
  const tool = await make('custom_tools.create_tool', { name: 'needs_a_yes', requires_approval: true });
  const target = await resolveTarget(ctx.db, ctx.registry, ctx.store.id, tool.name, { n: 2 });
  const outcome = await callTool({ ...ctx, source: 'mcp' }, target!);
  return { id: outcome.executionId };
}

/**
 * The tool execution audit log and the approval decisions (SPEC 2.6, 3.1, 4.5). Every tool call by
 * an agent or an MCP client is recorded by core/tools; approving or rejecting a gated call is a
 * human's decision, so those two are REST only (humanOnly), never tools an agent could call.
 */
/**
 * A person decides only with a role that may approve (SPEC 3.1): owner, admin or approver. The
 * actions' userScopes already refuse any other role's token (insufficient_scope); this stays as
 * the rule itself, in words, should a token ever carry the scope without the role.
 */
function decider(ctx: Ctx): string {
  const p = ctx.principal;
  if (p.kind === 'user' && !['owner', 'admin', 'approver'].includes(p.role))
    throw fail('role_required', `Approving and rejecting need the owner, admin or approver role; this user is ${p.role}.`);
  return actorOf(p).id ?? '';
}

const deps = (ctx: Pick<Ctx, 'db' | 'clock' | 'registry'>) => ({ db: ctx.db, clock: ctx.clock, registry: ctx.registry });

export default definePlugin({
  name: 'tool_executions',
  category: 'platform',
  description: 'The audit log of tool calls by agents and MCP clients, and the approval of gated calls.',
  resource: 'tool execution',
  // approvals:write lets a user's token with the approver role decide without ai:write.
  scopes: { read: ['ai', 'ai:read'], write: ['ai', 'ai:write', 'approvals:write'] },
  errors: { role_required: forbidden("The caller's role in the store does not allow this.") },
  config: ExecutionsConfig,
  // Approvals, as decided, for the audit trail.
  events: { 'tool_execution.approved': Execution, 'tool_execution.rejected': Execution },
  actions: {
    stream_executions: configured({
      kind: 'read',
      description:
        'Server-sent events of gated calls: a snapshot of the pending ones, then each change (held, decided, run) as it commits, from any server process.',
      input: StreamQuery,
      output: StreamEvent,
      rest: { method: 'GET', path: '/tool-executions/stream', response: 'raw', contentType: 'text/event-stream' },
      handler: (ctx) =>
        executionStream({ db: ctx.db, storeId: ctx.store.id, shutdown: ctx.shutdown, keepAliveMs: ctx.config.stream_keep_alive_ms }) as any,
    }),
    list_executions: action({
      kind: 'read',
      description: 'Tool calls, newest first, filtered by tool, agent_id, status, from and to; limit/offset pages with the total.',
      input: ExecutionQuery,
      output: ExecutionList,
      rest: { method: 'GET', path: '/tool-executions' },
      handler: (ctx, input) => queryExecutions(ctx.db, ctx.store.id, { ...input, from: instant(input.from, 'from'), to: instant(input.to, 'to') }),
    }),
    get_execution: action({
      kind: 'read',
      description: 'One tool call: status, input, output and, for a gated call, its approval state. Fetch the outcome of a held call here.',
      input: ExecutionId,
      output: Execution,
      rest: { method: 'GET', path: '/tool-executions/:id' },
      example: heldCall,
      handler: async (ctx, { id }) => toExecution(await executionRow(ctx.db, ctx.store.id, id)) as any,
    }),
    get_tool_config: action({
      kind: 'read',
      humanOnly: true,
      description: "The store's tool-config: per tool, requires_approval (every caller) and requires_confirmation (MCP clients' users).",
      input: Input({}),
      output: StoreToolConfig,
      rest: { method: 'GET', path: '/tool-config' },
      handler: (ctx) => getStoreToolConfig(ctx) as any,
    }),
    update_tool_config: action({
      kind: 'write',
      humanOnly: true,
      description:
        "Change the store's tool-config (merged per tool; null removes one): requires_approval gates the tool for every caller, an agent's own override winning; requires_confirmation asks the human behind an MCP call.",
      input: StoreToolConfigPatch,
      output: StoreToolConfig,
      rest: { method: 'PATCH', path: '/tool-config' },
      example: { tool_overrides: { products: { requires_confirmation: ['delete_product'] } } },
      handler: (ctx, input) => patchStoreToolConfig(ctx, input) as any,
    }),
    approve_execution: action({
      kind: 'write',
      humanOnly: true,
      // A user decides with approvals:write, which only owner, admin and approver hold, so a staff
      // member's console is not offered the button; API keys keep the plugin's write scopes.
      userScopes: ['approvals:write'],
      description: 'Approve a call waiting for approval: the tool runs now and the waiting agent gets its result. A second decision is a 409.',
      input: ApproveInput,
      output: Execution,
      errors: ['role_required'],
      rest: { method: 'POST', path: '/tool-executions/:id/approve' },
      example: heldCall,
      emits: ['tool_execution.approved'],
      handler: async (ctx, input) => {
        const out = await approveExecution(deps(ctx), ctx.store.id, input.id, { keyId: decider(ctx), comment: input.comment });
        ctx.emit('tool_execution.approved', out as object);
        return out as any;
      },
    }),
    reject_execution: action({
      kind: 'write',
      humanOnly: true,
      userScopes: ['approvals:write'],
      description: 'Reject a call waiting for approval: it never runs and the waiting agent gets the reason. A second decision is a 409.',
      input: RejectInput,
      output: Execution,
      errors: ['role_required'],
      rest: { method: 'POST', path: '/tool-executions/:id/reject' },
      example: heldCall,
      emits: ['tool_execution.rejected'],
      handler: async (ctx, input) => {
        const out = await rejectExecution(deps(ctx), ctx.store.id, input.id, { keyId: decider(ctx), reason: input.reason });
        ctx.emit('tool_execution.rejected', out as object);
        return out as any;
      },
    }),
  },
});
