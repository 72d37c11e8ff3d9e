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
/** `sms`: the agent answers the store's inbound SMS (phone plugin); the store's default agent among several. */
const Channels = Type.Array(Type.Union([Type.Literal('webchat'), Type.Literal('api'), Type.Literal('sms')]), {
  maxItems: 3,
  uniqueItems: true,
  description: 'Where the agent answers: api (POST /agents/{id}/chat), webchat (the storefront widget), sms (texts to the store’s Twilio number).',
});
/** `paused`: the agent keeps its settings and conversations but answers no chat (409 agent_paused). */
const Status = Type.Union([Type.Literal('active'), Type.Literal('paused')], {
  description: '`active` answers chats; `paused` refuses them (409 agent_paused) until set back to `active`.',
});

export const Agent = Type.Object({
  object: Type.Literal('agent'),
  id: Uuid(),
  name: Type.String(),
  model: Type.String(),
  system_prompt: Type.String(),
  tools: Type.Array(Type.String()),
  channels: Type.Array(Type.String()),
  is_default: Type.Boolean(),
  status: Status,
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
  status: Type.Optional(Status),
});

export const AgentId = Input({ id: Uuid('Agent id') });
export const AgentQuery = Input({ ...ListParams });
export const AgentList = ListOf(Agent);
export const AgentDeleted = Deleted;

export const ChatInput = Input({
  id: Uuid('Agent id'),
  message: Type.String({ minLength: 1, maxLength: 32_000 }),
  conversation_id: Type.Optional(Uuid('Continue this conversation; omitted: a new one (its id is in the X-Conversation-Id header).')),
  stream: Type.Optional(
    Type.Boolean({
      description:
        'false: answer one JSON object (ChatReply) once the reply is complete instead of the event stream; so does `Accept: application/json` without text/event-stream.',
    }),
  ),
});

/** What a tool call came to (tool_executions statuses); `pending_approval` when the chat stopped while it waited. */
const ToolStatus = Type.Union(
  [Type.Literal('success'), Type.Literal('error'), Type.Literal('timeout'), Type.Literal('rejected'), Type.Literal('pending_approval')],
  { description: 'success, error, timeout, rejected (by an approver or for want of one), or pending_approval if the reply stopped while it waited.' },
);
const ExecutionId = Type.Union([Type.String(), Type.Null()], {
  description: 'The tool execution (GET /tool-executions/{id}); null for discover_tools and calls to tools the agent was not given.',
});
const ToolError = Type.Object({ type: Type.String(), code: Type.String(), message: Type.String(), param: Type.Union([Type.String(), Type.Null()]) });

/** Tokens the reply took: summed over its model calls, as the provider reported them. */
const ChatUsage = Type.Object(
  { input_tokens: Type.Integer({ minimum: 0 }), output_tokens: Type.Integer({ minimum: 0 }) },
  { description: "Tokens the reply took, summed over the turn's model calls (0 for a provider that reports none)." },
);

/** One server-sent event of the chat stream (SPEC 4.2); the response is a stream of these. */
export const ChatEvent = Type.Object(
  {
    type: Type.Union([
      Type.Literal('text'),
      Type.Literal('tool_use'),
      Type.Literal('approval_required'),
      Type.Literal('tool_result'),
      Type.Literal('error'),
      Type.Literal('end'),
    ]),
    text: Type.Optional(Type.String()),
    tool: Type.Optional(Type.String()),
    input: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    message: Type.Optional(Type.String()),
    execution_id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'approval_required: the held execution; approve or reject it under /tool-executions. tool_result: the execution (null for discover_tools and unknown tools).',
      }),
    ),
    status: Type.Optional(ToolStatus),
    result: Type.Optional(Type.Unknown({ description: 'tool_result with status success: what the tool returned (the model reads the same).' })),
    error: Type.Optional(ToolError),
    code: Type.Optional(
      Type.String({
        description: 'error: why, when the reason is one a client acts on; `output_truncated`: a tool call cut off by the token limit, not run.',
      }),
    ),
    usage: Type.Optional(ChatUsage),
    truncated: Type.Optional(Type.Literal(true, { description: "end: the model's last text was cut off by its output token limit." })),
  },
  {
    description:
      "text/event-stream: lines `data: <ChatEvent>`; `end` is last, with the turn's `usage` (and `truncated: true` when the text was cut off by the token limit). Each `tool_use` is followed by its `tool_result` (tool, execution_id, status, and result or error), after an `approval_required` when the call is gated. While a call waits for approval, `: keep-alive` comments keep the stream open.",
  },
);

/** The whole reply as one JSON object: `stream: false`, or `Accept: application/json` without text/event-stream. */
export const ChatReply = Type.Object(
  {
    object: Type.Literal('agent_reply'),
    agent_id: Uuid(),
    conversation_id: Uuid('Send it as conversation_id to continue; also in the X-Conversation-Id header.'),
    text: Type.String({ description: "The model's text of this reply, all steps concatenated (the stream's text chunks)." }),
    tool_calls: Type.Array(
      Type.Object({
        tool: Type.String(),
        input: Type.Record(Type.String(), Type.Unknown()),
        execution_id: ExecutionId,
        status: ToolStatus,
      }),
      { description: 'The tool calls made for this reply, in order.' },
    ),
    error: Type.Union([Type.String(), Type.Null()], {
      description: "null when the reply is complete; otherwise why it stopped (the stream's error event: provider failure, step limit, shutdown).",
    }),
    error_code: Type.Union([Type.String(), Type.Null()], {
      description: "The error event's code when it has one (`output_truncated`: a tool call cut off by the token limit, not run).",
    }),
    truncated: Type.Boolean({ description: "true when the text was cut off by the model's output token limit." }),
    usage: ChatUsage,
  },
  {
    description:
      'Sent once the reply is complete. While a tool call waits for approval the body starts with whitespace (keep-alive), which JSON parsers skip.',
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
