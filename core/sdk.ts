/**
 * The one module a plugin imports from the core. What it exports is the platform's promise to
 * plugin authors; everything else in core/ is internal and free to change. A test
 * (test/contract/imports.test.ts) fails on a plugin importing any other core file.
 */

// Declaring a plugin: the contract, schemas, errors.
export { action, actorOf, credentialId, definePlugin, isTool, noExample } from './plugins/contract';
export type {
  ActionDef,
  ActionExample,
  ActionKind,
  Ctx,
  EnqueueOptions,
  ExampleKit,
  JobDeps,
  PluginDef,
  PluginJob,
  Principal,
  RestMapping,
  Store,
} from './plugins/contract';
export type { Registry } from './plugins/registry';
export type { Authenticated, Authenticator } from './http/auth';
export { flatName } from './plugins/registry';
export { Deleted, Input, ListOf, ListParams, Timestamp, Uuid } from './plugins/schema';
export {
  checkMetadata,
  mergeMetadata,
  Metadata,
  metadataFilter,
  MetadataFilter,
  MetadataPatch,
  METADATA_KEY_MAX,
  METADATA_MAX_KEYS,
  METADATA_VALUE_MAX,
} from './plugins/metadata';
export { containing, DateRange, dateRangeFilters, parseInstant } from './plugins/filters';
export { conflict, defineErrors, errors, fail, forbidden, invalid, SvcError, toToolError } from './errors';
export type { ErrorDef, ToolError } from './errors';
export { PLANS, isPlan, planAtLeast, type Plan } from './plans';

// Rows, time, money.
export type { Db } from './db/types';
export { isUniqueViolation, sqlState } from './db/pg-errors';
export { jsonParam, listPage, rowOr404, setClause, stamps, unique, type Row } from './db/rows';
export { page, type PageInput } from './plugins/pagination';
export { iso, isoOrNull, type Clock } from './clock';
export { checkCurrency, DEFAULT_CURRENCY, decimalsOf, fromMinor, toMinor } from './money';
export { errorFields, type Logger } from './log';

// Events and webhooks.
export { recordEvents, writeEvents, deliveryJob, WEBHOOK_QUEUE } from './events/outbox';
export { invalidateSubscriptions } from './events/subscriptions';
export { ALL_EVENTS, TEST_EVENT } from './events/types';
export { API_VERSIONS, checkEndpointVersion, LATEST_API_VERSION } from './webhooks/versions';
export { enqueue } from './jobs/send';
export { generateSecret } from './webhooks/sign';
export { toolsChanged } from './signals';

// Erasure of a person's data from the core's copies (events, audit log, idempotent replays).
export { ERASED, scrubPersonalData, type PersonalData, type PersonalDataColumn } from './personal-data';

// Outside the process: secrets, outbound requests, the sandbox.
export { secretBox, resetSecretBox, redactDeep } from './secrets';
export { checkUrl, EgressError, egressFetch, type AllowList, type EgressInit, type Resolver } from './net/egress';
export { runInSandbox, sandboxPoolSize } from './sandbox/pool';
export { ASYNC_FUNCTION } from './sandbox';

// Stores and keys (the operator's API).
export { createKey, createStore, expireKey, getStore, revokeKey, validateExpiry, validateScopes } from './keys';
export { checkOrigin, createPublishableKey, resolvePublishableKey } from './keys';

// The tool-call path: catalog, calls, approvals, the audit log, custom tools.
export { CUSTOM_TOOLSET, DISCOVER_TOOLS, discover, listTools, resolveCall, type ToolOptions } from './tools/catalog';
export { callTool, resolveTarget, type ToolCaller, type ToolOutcome, type ToolTarget } from './tools/call';
export { approveExecution, rejectExecution, waitForOutcome } from './tools/approvals';
export { EXECUTION_STATUSES, executionRow, queryExecutions, toExecution } from './tools/executions';
export { executionStream } from './tools/execution-stream';
export { checkCondition, type ToolOverrides } from './tools/gate';
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
  type CustomTool,
} from './tools/custom';
