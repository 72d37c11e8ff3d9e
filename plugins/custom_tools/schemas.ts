import { Type, type TProperties } from '@sinclair/typebox';
import { Deleted, Input, ListOf, ListParams, PLANS, Timestamp, Uuid } from '../../core/sdk';

const Name = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z][a-z0-9_]*$',
  errorMessage: 'must be snake_case: a lower-case letter, then lower-case letters, digits and underscores',
  description: 'snake_case, unique in the store; may not be a built-in tool name.',
});
const Description = Type.String({ minLength: 1, maxLength: 2000, description: 'Shown to the model to decide when to use the tool.' });
const Category = Type.String({ minLength: 1, maxLength: 64 });
const JsonSchema = Type.Record(Type.String(), Type.Unknown(), { description: 'JSON Schema of the input: type object with properties and required.' });
const Plan = Type.Union(
  PLANS.map((p) => Type.Literal(p)),
  { description: 'Minimum store plan that may run the tool.' },
);
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL (a private address only if SVC_EGRESS_ALLOW allows it); may contain secret references.',
});
const Method = Type.Union(
  ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)),
  { description: 'Default POST.' },
);
const Headers = Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 4096 }), {
  maxProperties: 50,
  description: 'Header name to value; values may contain secret references.',
});
const TimeoutMs = Type.Integer({ minimum: 1, maximum: 60_000, description: 'Per-call time limit in milliseconds (default 10000).' });
const Code = Type.String({ minLength: 1, maxLength: 100_000, description: 'A function body; returns the result (a promise is awaited).' });

/** SPEC 4.5 tool-level approval settings, the same in both forms. */
const approvalSettings = {
  requires_approval: Type.Optional(Type.Boolean({ description: 'Every call waits for a human decision (default false).' })),
  requires_confirmation: Type.Optional(
    Type.Boolean({
      description:
        "An MCP client's call first asks the human behind it to confirm (elicitation, form mode); declined, it does not run (default false). Agents' chats are not asked.",
    }),
  ),
  approval_timeout_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080, description: 'Default 30.' })),
  timeout_action: Type.Optional(
    Type.Union([Type.Literal('reject'), Type.Literal('approve'), Type.Literal('escalate')], { description: 'Default reject.' }),
  ),
  escalation_group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
};

const optional = <T extends TProperties>(props: T) => Type.Partial(Type.Object(props)).properties;

// Shape B (STORE/tools).
const ExecutionConfig = Type.Object(
  {
    url: Type.Optional(Url),
    method: Type.Optional(Method),
    headers: Type.Optional(Headers),
    timeout_ms: Type.Optional(TimeoutMs),
    code: Type.Optional(Code),
  },
  {
    additionalProperties: false,
    description: 'http: url, method, headers (secret references `{{NAME}}`), timeout_ms; javascript: code (the input is `params`).',
  },
);
const shapeB = {
  name: Name,
  description: Description,
  parameters: JsonSchema,
  execution_type: Type.Union([Type.Literal('http'), Type.Literal('javascript')]),
  execution_config: ExecutionConfig,
  visibility: Type.Union([Type.Literal('private'), Type.Literal('public')], {
    description: 'private: this store (default). public (every store may enable it) is set by the operator only: a store asking for it gets 403.',
  }),
  requires_plan: Plan,
  category: Category,
};
export const ToolCreate = Input({
  ...shapeB,
  parameters: Type.Optional(JsonSchema),
  visibility: Type.Optional(shapeB.visibility),
  requires_plan: Type.Optional(Plan),
  category: Type.Optional(Category),
  ...approvalSettings,
});
export const ToolUpdate = Input({ id: Uuid('Tool id'), ...optional(shapeB), ...approvalSettings });

// Shape A (/custom-tools).
const Handler = Type.Object(
  {
    type: Type.Union([Type.Literal('webhook'), Type.Literal('javascript')]),
    url: Type.Optional(Url),
    method: Type.Optional(Method),
    headers: Type.Optional(Headers),
    timeout_ms: Type.Optional(TimeoutMs),
    code: Type.Optional(Code),
  },
  {
    additionalProperties: false,
    description: 'webhook: url, method, headers (secret references `{{secrets.NAME}}`), timeout_ms; javascript: code (the input is `input`).',
  },
);
const shapeA = {
  name: Name,
  description: Description,
  category: Category,
  input_schema: JsonSchema,
  handler: Handler,
  visibility: Type.Union([Type.Literal('store'), Type.Literal('public')], {
    description: 'store: this store (default). public (every store may enable it) is set by the operator only: a store asking for it gets 403.',
  }),
  requires_plan: Plan,
};
export const CustomToolCreate = Input({
  ...shapeA,
  category: Type.Optional(Category),
  input_schema: Type.Optional(JsonSchema),
  visibility: Type.Optional(shapeA.visibility),
  requires_plan: Type.Optional(Plan),
  ...approvalSettings,
});
export const CustomToolUpdate = Input({ id: Uuid('Tool id'), ...optional(shapeA), ...approvalSettings });

export const ToolId = Input({ id: Uuid('Tool id') });
export const ToolQuery = Input({ ...ListParams });

export const SecretsInput = Type.Object(
  { id: Uuid('Tool id') },
  {
    additionalProperties: Type.String({ maxLength: 4096 }),
    description: 'The whole set of secrets: name (letters, digits, _; not `id`) to value. Replaces the previous set; {} clears it.',
  },
);
export const SecretsSet = Type.Object({
  object: Type.Literal('tool_secrets'),
  tool_id: Uuid(),
  names: Type.Array(Type.String(), { description: 'The names now set; values are never returned.' }),
  updated_at: Timestamp(),
});

export const TestB = Input({ id: Uuid('Tool id'), parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())) });
export const TestA = Input({ id: Uuid('Tool id'), input: Type.Optional(Type.Record(Type.String(), Type.Unknown())) });
export const TestResult = Type.Object({
  success: Type.Boolean(),
  result: Type.Unknown({ description: "The tool's result (null when it failed)." }),
  execution_time_ms: Type.Integer(),
  error: Type.Optional(Type.Object({ status: Type.Union([Type.Literal('error'), Type.Literal('timeout')]), message: Type.String() })),
});

const common = {
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  requires_plan: Type.String(),
  requires_approval: Type.Boolean(),
  requires_confirmation: Type.Boolean({ description: 'MCP calls ask the human behind the client to confirm before the tool runs.' }),
  approval_timeout_minutes: Type.Integer(),
  timeout_action: Type.String(),
  escalation_group: Type.Union([Type.String(), Type.Null()]),
  secret_names: Type.Array(Type.String(), { description: 'Names of the secrets set; values are never returned.' }),
  owned: Type.Boolean({ description: "false: another store's tool the operator published to every store; read-only here." }),
  enabled: Type.Boolean({
    description: "Offered to this store's agents and MCP clients: always for its own tools; for a published one, after POST .../enable.",
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};
export const Tool = Type.Object({
  object: Type.Literal('tool'),
  ...common,
  parameters: JsonSchema,
  execution_type: Type.String(),
  execution_config: Type.Record(Type.String(), Type.Unknown()),
  visibility: Type.String(),
});
export const CustomTool = Type.Object({
  object: Type.Literal('custom_tool'),
  ...common,
  input_schema: JsonSchema,
  handler: Type.Record(Type.String(), Type.Unknown()),
  visibility: Type.String(),
});
export const ToolList = ListOf(Tool);
export const CustomToolList = ListOf(CustomTool);
export const ToolDeleted = Deleted;
export const Empty = Type.Null({ description: 'No body (204).' });
