import { Type } from '@sinclair/typebox';
import { action, conflict, definePlugin, providerSettings, type Ctx, onFirstCall } from '../../core/sdk';
import { isTool, usableCustomTools } from '../../core/platform';
import migration001 from './migrations/001_agents.sql' with { type: 'text' };
import migration002 from './migrations/002_tool_config.sql' with { type: 'text' };
import migration003 from './migrations/003_model_calls.sql' with { type: 'text' };
import migration004 from './migrations/004_webchat.sql' with { type: 'text' };
import { webchatActions, webchatErrors } from './webchat';
import {
  Agent,
  AgentCreate,
  AgentDeleted,
  AgentId,
  AgentList,
  AgentQuery,
  AgentUpdate,
  ChatEvent,
  ChatInput,
  ChatReply,
  Conversation,
  ConversationId,
  ConversationList,
  ConversationQuery,
  AgentMessage,
} from './schemas';
import type { AgentDeps } from './store';
import { getToolConfig, patchToolConfig, ToolConfig, ToolConfigPatch } from './tool-config';
import { ModelUsage, modelUsage, UsageQuery } from './usage';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { agentRow, createAgent, deleteAgent, getConversation, listAgents, listConversations, toAgent, updateAgent } = onFirstCall(
  () => import('./store'),
);
const { chat } = onFirstCall(() => import('./chat'));

/** The provider settings (core/providers: OPENAI_BASE_URL ...) plus the chat's own. */
const AgentsConfig = Type.Object({
  ...providerSettings,
  keep_alive_ms: Type.Integer({ minimum: 10, default: 15_000, description: 'Keep-alive comment interval of a chat waiting for an approval.' }),
  approval_poll_ms: Type.Integer({ minimum: 10, default: 500, description: 'How often a waiting chat checks for the decision.' }),
  webchat_messages_per_minute: Type.Integer({ minimum: 1, default: 10, description: 'Messages one storefront visitor may send a minute (webchat).' }),
});

/** What the agents code needs from outside itself, read from ctx: the registry and the settings. */
const deps = (ctx: Ctx): AgentDeps => ({
  plugins: () => ctx.registry.plugins,
  providers: ctx.config,
  keepAliveMs: ctx.config.keep_alive_ms,
  approvalPollMs: ctx.config.approval_poll_ms,
});

export default definePlugin({
  name: 'agents',
  category: 'intelligence',
  description: 'AI agents: a model, a system prompt and the tool categories it may use; chat with them.',
  resource: 'agent',
  scopes: { read: ['ai', 'ai:read'], write: ['ai', 'ai:write'] },
  config: AgentsConfig,
  events: { 'agent.message': AgentMessage },
  errors: {
    agent_paused: conflict('The agent is paused (status paused): it answers no chat until its status is set back to active.'),
    ...webchatErrors,
  },
  tables: ['agents', 'agent_conversations', 'agent_messages', 'agent_model_calls', 'webchat_rate'],
  migrations: [
    { id: 'agents/001_agents', sql: migration001 },
    { id: 'agents/002_tool_config', sql: migration002 },
    { id: 'agents/003_model_calls', sql: migration003 },
    { id: 'agents/004_webchat', sql: migration004 },
  ],
  // Conversation turns hold what users typed and what tools returned (a customer's details): an erasure scrubs them.
  personalData: [{ table: 'agent_messages', column: 'content' }],
  actions: {
    ...webchatActions(deps),
    list_agent_tools: action({
      kind: 'read',
      description: 'What an agent may name in its tools: the tool categories of the registry and the custom tools this store can use.',
      input: Type.Object({}),
      output: Type.Object({
        object: Type.Literal('agent_tool_choices'),
        builtin: Type.Array(
          Type.Object({ name: Type.String(), category: Type.String(), description: Type.String(), actions: Type.Array(Type.String()) }),
        ),
        custom: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), requires_approval: Type.Boolean() })),
      }),
      rest: { method: 'GET', path: '/agent-tools' },
      handler: async (ctx) => ({
        object: 'agent_tool_choices' as const,
        builtin: ctx.registry.plugins
          .map((p) => ({
            p,
            actions: Object.entries(p.actions)
              .filter(([, a]) => isTool(p, a))
              .map(([n]) => n),
          }))
          .filter((x) => x.actions.length)
          .map(({ p, actions }) => ({ name: p.name, category: p.category, description: p.description ?? '', actions })),
        custom: (await usableCustomTools(ctx.db, ctx.store.id)).map((t) => ({
          name: t.name,
          description: t.description,
          requires_approval: t.requires_approval,
        })),
      }),
    }),
    list_agents: action({
      kind: 'read',
      description: "List the store's agents, newest first. Paginate with starting_after.",
      input: AgentQuery,
      output: AgentList,
      rest: { method: 'GET', path: '/agents' },
      handler: listAgents,
    }),
    get_agent: action({
      kind: 'read',
      description: 'Fetch one agent by id: model, system prompt, tools, channels.',
      input: AgentId,
      output: Agent,
      rest: { method: 'GET', path: '/agents/:id' },
      handler: async (ctx, { id }) => toAgent(await agentRow(ctx, id)),
    }),
    create_agent: action({
      kind: 'write',
      description: 'Create an agent. model is openai/<model> or anthropic/<model>; tools are tool categories such as products or orders.',
      input: AgentCreate,
      output: Agent,
      rest: { method: 'POST', path: '/agents', status: 201 },
      errors: ['provider_not_configured'],
      example: { name: 'Shop helper', model: 'openai/gpt-test', system_prompt: 'Answer briefly.', tools: ['products'], channels: ['api'] },
      handler: (ctx, input) => createAgent(deps(ctx), ctx, input),
    }),
    update_agent: action({
      kind: 'write',
      description:
        'Change an agent; tools, when given, replace the whole list. is_default true clears it on the other agents. status paused stops it answering chats; active resumes.',
      input: AgentUpdate,
      output: Agent,
      rest: { method: 'PATCH', path: '/agents/:id' },
      errors: ['provider_not_configured'],
      handler: (ctx, input) => updateAgent(deps(ctx), ctx, input),
    }),
    delete_agent: action({
      kind: 'destructive',
      description: 'Delete an agent and its conversations.',
      input: AgentId,
      output: AgentDeleted,
      rest: { method: 'DELETE', path: '/agents/:id' },
      handler: deleteAgent,
    }),
    chat: action({
      kind: 'write',
      description:
        'Send a message to an agent; the reply streams as server-sent events (text, tool_use, tool_result, error, end), or comes as one JSON object with stream false or Accept: application/json. A paused agent answers 409 agent_paused.',
      input: ChatInput,
      output: ChatEvent,
      rest: { method: 'POST', path: '/agents/:id/chat', response: 'raw', contentType: 'text/event-stream', jsonOutput: ChatReply },
      errors: ['agent_paused', 'provider_not_configured'],
      // The model is the configured provider's (OPENAI_BASE_URL): the sweeps point it at a fake.
      example: async ({ make }) => ({ id: (await make('agents.create_agent')).id, message: 'Which aprons are in stock?' }),
      emits: ['agent.message'],
      handler: (ctx, input) => chat(deps(ctx), ctx, input) as any,
    }),
    get_tool_config: action({
      kind: 'read',
      description: "The agent's approval overrides per tool (SPEC 4.5 tool_overrides).",
      input: AgentId,
      output: ToolConfig,
      rest: { method: 'GET', path: '/agents/:id/tool-config' },
      handler: getToolConfig,
    }),
    update_tool_config: action({
      kind: 'write',
      // An agent must not be able to lift its own approval gates.
      humanOnly: true,
      description: 'Set which tool calls of this agent wait for human approval: requires_approval, auto_approve, approval_conditions, timeouts.',
      input: ToolConfigPatch,
      output: ToolConfig,
      rest: { method: 'PATCH', path: '/agents/:id/tool-config' },
      example: async ({ make }) => ({
        id: (await make('agents.create_agent')).id,
        tool_overrides: { products: { requires_approval: ['delete_product'] } },
      }),
      handler: (ctx, input) => patchToolConfig(deps(ctx), ctx, input),
    }),
    list_conversations: action({
      kind: 'read',
      description: "List an agent's conversations, most recently started first.",
      input: ConversationQuery,
      output: ConversationList,
      rest: { method: 'GET', path: '/agents/:id/conversations' },
      handler: listConversations,
    }),
    get_model_usage: action({
      kind: 'read',
      description:
        "The store's model usage in tokens, as the providers reported it: totals and per agent, provider and model; filter by created range or agent_id.",
      input: UsageQuery,
      output: ModelUsage,
      rest: { method: 'GET', path: '/model-usage' },
      handler: modelUsage,
    }),
    get_conversation: action({
      kind: 'read',
      description: 'Fetch one conversation of an agent with its messages in order (user, assistant with tool calls, tool results).',
      input: ConversationId,
      output: Conversation,
      rest: { method: 'GET', path: '/agents/:id/conversations/:conversation_id' },
      example: async ({ make }) => {
        const agent = await make('agents.create_agent');
        const chat: Response = await make('agents.chat', { id: agent.id });
        return { id: agent.id, conversation_id: chat.headers.get('x-conversation-id')! };
      },
      handler: getConversation,
    }),
  },
});
