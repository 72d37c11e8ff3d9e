/**
 * The one module a plugin imports from the core. What it exports is the platform's promise to
 * plugin authors; everything else in core/ is internal and free to change. A test
 * (test/contract/imports.test.ts) fails on a plugin importing any other core file. The platform's
 * own plugins (keys, users, tools, agents, webhooks) also import core/platform.ts, which no other
 * plugin may.
 */

// Declaring a plugin: the contract, schemas, errors.
export { action, actionFor, actorOf, definePlugin, job, noExample } from './plugins/contract';
export { JobStarted } from './jobs/tracked';
export type {
  ActionDef,
  ActionExample,
  ActionsOf,
  CallableActions,
  CallOptions,
  DeclaredEvents,
  EventsOf,
  JobCtx,
  JobObject,
  JobSpec,
  Reaction,
  ReactionEvent,
  ActionKind,
  Ctx,
  EnqueueOptions,
  ExampleKit,
  JobDeps,
  PluginDef,
  McpApps,
  McpClient,
  McpPromptDef,
  McpResourceDef,
  PersonalDataColumn,
  Principal,
  RestMapping,
  Store,
} from './plugins/contract';
export { Deleted, Email, Input, ListOf, ListParams, Origin, Timestamp, Uuid, WebUrl, When } from './plugins/schema';
export { EMAIL_ADDRESS, isWebUrl, ORIGIN_PATTERN } from './plugins/formats';
export { checkMetadata, mergeMetadata, Metadata, metadataFilter, MetadataFilter, MetadataPatch } from './plugins/metadata';
export { containing, DateRange, dateRangeFilters, parseInstant } from './plugins/filters';
export { conflict, defineErrors, errors, fail, forbidden, invalid, SvcError } from './errors';
export type { ErrorDef } from './errors';
export { PLAN_LIMITS, PLANS, type Plan, type PlanLimits } from './plans';

// Rows, time, money.
export type { Db } from './db/types';
export { isUniqueViolation, sqlState } from './db/pg-errors';
export { existingIds, jsonParam, listPage, rowOr404, setClause, stamps, unique, type Row } from './db/rows';
// A lock on (store, key) until the transaction ends, for a row that may not exist yet.
export { lockKey } from './db/lock-key';
export { page, type PageInput } from './plugins/pagination';
export { iso, isoOrNull, type Clock } from './clock';
export { checkCurrency, DEFAULT_CURRENCY, decimalsOf, fromMinor, toMinor } from './money';
export { errorFields, type Logger } from './log';

// High-rate events (views, clicks, scans, opens) answered at once and written in batches, drained at shutdown.
export { lazy, onFirstCall } from './lazy';
export { writeBehind, type WriteBehind, type WriteBehindOptions } from './write-behind';

// A write that is one statement with its job (a data-modifying CTE, plugins/email/accept.ts); events
// emitted outside an action's transaction (a streaming action, a write-behind batch); a secret at rest.
export { jobInsertStatement } from './jobs/send';
export { emitEvents, type EventTypes } from './events/outbox';
// Run-time event subscriptions of one store (a workflow's trigger; the plugin's `onSubscribed` hears
// them), and the cause stored with the events a piece of work writes (loop protection).
export { setEventSubscriptions } from './events/subscriptions';
export { withEventCause } from './events/cause';
export { secretBox } from './secrets';

// Outbound requests to a URL a user supplied (a logo, a feed, a receiver) go through the egress guard.
export type { EventOrigin } from './events/types';
export { EgressError, egressFetch, type EgressInit } from './net/egress';
// The server's public origin for a request outside invoke (an authenticator's), and outside any request.
export { configuredOrigin, requestOrigin, type Site } from './net/site';

// Erasure of a person's data from the core's copies (events, audit log, idempotent replays).
export { scrubPersonalData } from './personal-data';

// Gated tool executions are announced on commit on this channel (`{store_id, id, status}`): a plugin
// that must react within seconds (the email plugin mails approvers) listens with `db.listen`.
export { EXECUTIONS_CHANNEL } from './tools/execution-stream';

// Outside providers, one interface per kind (chat models, embeddings, web search), chosen by the
// operator's settings (spread `providerSettings` into a plugin's config); every call metered per
// store and refused at the store's spend cap (core/providers/README.md).
export {
  chatModel,
  embeddingsProvider,
  imagesProvider,
  metered,
  checkSpendCap,
  providerSettings,
  recordUsage,
  removeBgProvider,
  searchProvider,
  upscaleProvider,
  videosProvider,
  setSpendCap,
  thisMonth,
  usageReport,
} from './providers';
export type {
  ChatMessage,
  ChatProvider,
  Completion,
  EmbeddingsProvider,
  Meter,
  ModelEvent,
  ProviderConfig,
  SearchProvider,
  SearchResult,
  ToolCall,
  ToolDef,
  ToolResult,
  Usage,
  UsageCounts,
  ProviderVideo,
  VideosProvider,
  VideoStatus,
} from './providers';

// Inbound routes signed with SVC_INBOUND_SECRET (mail relays, carriers): one scheme.
export { inboundSignature, inboundSignatureValid } from './inbound-signature';

// Stores by hostname (issue 50): the store plugin's `hostnames` setting, the agentic endpoints' Host.
export { hostKey, hostOf, setStoreHostnames, storeForHost, storeHostnames } from './hosts';

// Payment adapters (issue 50): the agentic checkout charges a PSP token, never card numbers.
export { STRIPE_DEFAULT_BASE, stripePayments, type ChargeRequest, type ChargeResult, type PaymentsProvider } from './providers';
