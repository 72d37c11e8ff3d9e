import { Type } from '@sinclair/typebox';
import { Input, Timestamp, Uuid } from '../../core/sdk';
import { EXECUTION_STATUSES } from '../../core/platform';

const Status = Type.Union(EXECUTION_STATUSES.map((s) => Type.Literal(s)));
// Validated as text here; the handler refuses an impossible date with a 400 naming the field.
const Instant = (description: string) =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$',
    errorMessage: 'must be an ISO 8601 timestamp',
    description,
  });

export const ExecutionQuery = Input({
  tool: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Tool name, e.g. products or a custom tool's name." })),
  agent_id: Type.Optional(Uuid('Only calls made by this agent.')),
  status: Type.Optional(Status),
  from: Type.Optional(Instant('Created at or after this ISO 8601 timestamp.')),
  to: Type.Optional(Instant('Created at or before this ISO 8601 timestamp.')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100 (default 20).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});

export const Approval = Type.Object({
  gated_by: Type.String({ description: 'What gated it: tool (its requires_approval), agent (tool_overrides) or condition.' }),
  message: Type.String(),
  timeout_minutes: Type.Integer(),
  timeout_action: Type.String(),
  escalation_group: Type.Union([Type.String(), Type.Null()]),
  group: Type.String({ description: 'Who is asked now: default, or the escalation group after a first timeout.' }),
  escalated: Type.Boolean(),
  expires_at: Type.Union([Timestamp(), Type.Null()]),
  decision: Type.Union([Type.String(), Type.Null()], { description: 'approved, rejected, approved_on_timeout or expired; null while pending.' }),
  decided_at: Type.Union([Timestamp(), Type.Null()]),
  decided_by: Type.Union([Type.String(), Type.Null()], { description: 'The deciding API key id, or timeout.' }),
  comment: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'The rejection reason.' }),
});

export const Execution = Type.Object({
  object: Type.Literal('tool_execution'),
  id: Uuid(),
  tool: Type.String(),
  action: Type.String({ description: 'The action within the tool; run for a custom tool.' }),
  agent_id: Type.Union([Uuid(), Type.Null()]),
  agent_name: Type.Union([Type.String(), Type.Null()]),
  source: Type.Union([Type.Literal('agent'), Type.Literal('mcp'), Type.Literal('workflow')]),
  status: Status,
  duration_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'End to end, in milliseconds; for an approved call, its run.' }),
  input: Type.Unknown(),
  output: Type.Unknown({ description: 'The result, or {error: {type, code, message}}; null while pending.' }),
  approval: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'Present on gated calls.' }),
  caller: Type.Optional(
    Type.Union([Type.Object({ type: Type.Union([Type.Literal('api_key'), Type.Literal('user')]), id: Type.String() }), Type.Null()], {
      description: 'Who made a gated call: the API key (a publishable key for the webchat widget) or the user; null on ungated calls.',
    }),
  ),
  created_at: Timestamp(),
  completed_at: Type.Union([Timestamp(), Type.Null()]),
});

export const ExecutionList = Type.Object({
  executions: Type.Array(Execution),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const ExecutionId = Input({ id: Uuid('Execution id') });
export const ApproveInput = Input({ id: Uuid('Execution id'), comment: Type.Optional(Type.String({ maxLength: 2000 })) });
export const RejectInput = Input({ id: Uuid('Execution id'), reason: Type.Optional(Type.String({ maxLength: 2000 })) });

export const StreamQuery = Input({});
export const StreamEvent = Type.Object(
  {
    type: Type.Union([Type.Literal('snapshot'), Type.Literal('execution'), Type.Literal('end')]),
    executions: Type.Optional(Type.Array(Execution, { description: 'snapshot: every call pending now.' })),
    execution: Type.Optional(Execution),
  },
  { description: 'snapshot first, then execution for each change of a gated call, end when the server stops.' },
);
