import { Type } from '@sinclair/typebox';
import { Deleted, Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

// Text PostgreSQL can store (no NUL, no lone surrogate): invoke refuses the rest with a 400.
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Model = Type.String({
  minLength: 3,
  maxLength: 200,
  pattern: '^(openai|anthropic)/.+$',
  errorMessage: 'must be openai/<model> or anthropic/<model>',
  description: 'Provider and model: `openai/<model>` (any OpenAI-compatible chat-completions server) or `anthropic/<model>`.',
});
const Prompt = Type.String({ maxLength: 100_000 });
const Tools = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 50,
  description: 'Tool categories the agent may use, e.g. products, orders, customers; replaced whole on update.',
});
const Channels = Type.Array(Type.Union([Type.Literal('webchat'), Type.Literal('api')]), { maxItems: 2, uniqueItems: true });

export const Agent = Type.Object({
  object: Type.Literal('agent'),
  id: Uuid(),
  name: Type.String(),
  model: Type.String(),
  system_prompt: Type.String(),
  tools: Type.Array(Type.String()),
  channels: Type.Array(Type.String()),
  is_default: Type.Boolean(),
  status: Type.Literal('active'),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const AgentCreate = Input({
  name: Name,
  model: Model,
  system_prompt: Type.Optional(Prompt),
  tools: Type.Optional(Tools),
  channels: Type.Optional(Channels),
  is_default: Type.Optional(Type.Boolean({ description: "Make this the store's default agent (clears the flag on the others)." })),
});

export const AgentUpdate = Input({
  id: Uuid('Agent id'),
  name: Type.Optional(Name),
  model: Type.Optional(Model),
  system_prompt: Type.Optional(Prompt),
  tools: Type.Optional(Tools),
  channels: Type.Optional(Channels),
  is_default: Type.Optional(Type.Boolean()),
});

export const AgentId = Input({ id: Uuid('Agent id') });
export const AgentQuery = Input({ ...ListParams });
export const AgentList = ListOf(Agent);
export const AgentDeleted = Deleted;

export const ChatInput = Input({
  id: Uuid('Agent id'),
  message: Type.String({ minLength: 1, maxLength: 32_000 }),
  conversation_id: Type.Optional(Uuid('Continue this conversation; omitted: a new one (its id is in the X-Conversation-Id header).')),
});

/** One server-sent event of the chat stream (SPEC 4.2); the response is a stream of these. */
export const ChatEvent = Type.Object(
  {
    type: Type.Union([Type.Literal('text'), Type.Literal('tool_use'), Type.Literal('approval_required'), Type.Literal('error'), Type.Literal('end')]),
    text: Type.Optional(Type.String()),
    tool: Type.Optional(Type.String()),
    input: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    message: Type.Optional(Type.String()),
    execution_id: Type.Optional(Type.String({ description: 'approval_required: the held execution; approve or reject it under /tool-executions.' })),
  },
  {
    description:
      'text/event-stream: lines `data: <ChatEvent>`; `end` is last. While a call waits for approval, `: keep-alive` comments keep the stream open.',
  },
);

export const Message = Type.Object({
  object: Type.Literal('agent_message'),
  id: Uuid(),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')]),
  text: Type.Optional(Type.String()),
  tool_calls: Type.Optional(Type.Array(Type.Object({ id: Type.String(), tool: Type.String(), input: Type.Unknown() }))),
  tool_results: Type.Optional(Type.Array(Type.Object({ id: Type.String(), tool: Type.String(), content: Type.String(), is_error: Type.Boolean() }))),
  created_at: Timestamp(),
});

export const Conversation = Type.Object({
  object: Type.Literal('conversation'),
  id: Uuid(),
  agent_id: Uuid(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  messages: Type.Optional(Type.Array(Message)),
});

export const ConversationQuery = Input({ id: Uuid('Agent id'), ...ListParams });
export const ConversationId = Input({ id: Uuid('Agent id'), conversation_id: Uuid('Conversation id') });
export const ConversationList = ListOf(Conversation);

/** The agent.message event's payload: one turn, with the agent and conversation it belongs to. */
export const AgentMessage = Type.Intersect([Message, Type.Object({ agent_id: Uuid(), conversation_id: Uuid() })]);
