/**
 * The platform's internals its own plugins are built on: the tool path, keys, the sandbox,
 * egress, secrets and webhook delivery. Only the platform plugins (PLATFORM_PLUGINS in
 * test/contract/imports.test.ts) may import this module; every other plugin has core/sdk.ts alone,
 * so nothing here is a promise to plugin authors and it may change with the core.
 */

// The registry as a whole, and who is calling.
export { isTool } from './plugins/contract';
export type { Registry } from './plugins/registry';
export type { Authenticator } from './http/auth';
export { userOperations } from './http/operations';

// Events and webhooks.
export { writeEvents, deliveryJob, WEBHOOK_QUEUE } from './events/outbox';
// The core's own queues (webhook deliveries), which a plugin's ctx.enqueue does not reach.
export { enqueue } from './jobs/send';
export { invalidateSubscriptions } from './events/subscriptions';
export { ALL_EVENTS, TEST_EVENT } from './events/types';
export { API_VERSIONS, bodyForVersion, checkEndpointVersion, LATEST_API_VERSION } from './webhooks/versions';
export { deliveryHeaders, generateSecret } from './webhooks/sign';
export { toolsChanged } from './signals';

// Outside the process: secrets, outbound requests, the sandbox.
export { checkUrl, type AllowList, type Resolver } from './net/egress';
export { runInSandbox } from './sandbox/pool';
export { ASYNC_FUNCTION } from './sandbox/constants';

// Stores and keys (the operator's API).
export { createKey, createStore, expireKey, revokeKey, validateExpiry, validateScopes } from './keys';

// The tool-call path: catalog, calls, approvals, the audit log, custom tools.
export { CUSTOM_TOOLSET, DISCOVER_TOOLS, discover, listTools, resolveCall, type ToolOptions } from './tools/catalog';
export { callTool, resolveTarget } from './tools/call';
export type { CustomTool, ToolCaller, ToolOutcome, ToolOverrides, ToolTarget } from './tools/types';
export { approveExecution, recordedOutcome, rejectExecution, waitForOutcome } from './tools/approvals';
export { EXECUTION_STATUSES, executionRow, principalFrom, principalOf, queryExecutions, toExecution } from './tools/executions';
export { checkCondition } from './tools/gate';
export { saveStoreToolConfig, storeToolConfig } from './tools/store-config';
export { adminToolView, publishTool, toolById, unpublishTool } from './tools/publish';
export {
  builtinNames,
  checkPlan,
  compileSchema,
  CUSTOM_ACTION,
  publicToolNames,
  publicToolsNamed,
  runCustomTool,
  toCustomTool,
  usableCustomTools,
  validateCustomInput,
} from './tools/custom';

// The console and the webchat widget: the live stream of held calls, publishable keys.
export { executionStream } from './tools/execution-stream';
export { checkOrigin, createPublishableKey, resolvePublishableKey } from './keys';

// The OpenAPI document the registry describes (api_docs serves it cut to the caller).
export { buildOpenApi } from './http/openapi';
// svc_status: readiness (every migration of this build applied).
export { allMigrations } from './migrations';
// Jobs a node runs itself (local_agent's run_task): the row a client follows, moved as the runner moves it.
export { claimJob, failJob, finishJob, insertJob } from './jobs/tracked';
// telemetry: the tracer the core's hooks report to (core/plugins/telemetry.ts).
export { installTracer, type TracedAttrs, type TracedKind, type TracedOutcome, type Tracer } from './plugins/telemetry';
