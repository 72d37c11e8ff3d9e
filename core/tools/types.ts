/**
 * The types the modules of the tool path share (call, executions, approvals, catalog, custom,
 * gate). They live here, apart from the code, so those modules import each other one way only.
 */
import type { Clock } from '../clock';
import type { Db } from '../db/types';
import type { SvcError } from '../errors';
import type { Logger } from '../log';
import type { Plan } from '../plans';
import type { McpClient, PluginDef, Principal, Registry, Store } from '../plugins/contract';
import type { HttpToolConfig } from './http-tool';

/** What happens to a held call when its approval window closes (SPEC 3.1). */
export type TimeoutAction = 'reject' | 'approve' | 'escalate';

/** One tool's entry in an agent's tool_overrides (SPEC 4.5), plus the tool-level settings. */
export interface ToolOverride {
  requires_approval?: boolean | string[];
  /** Store-wide config only: ask the human behind an MCP call to confirm (elicitation), not an approver. */
  requires_confirmation?: boolean | string[];
  auto_approve?: string[];
  approval_conditions?: Record<string, { when: string; message?: string }>;
  approval_timeout_minutes?: number;
  timeout_action?: TimeoutAction;
  escalation_group?: string;
}
export type ToolOverrides = Record<string, ToolOverride>;

export interface ToolCaller {
  db: Db;
  clock: Clock;
  registry: Registry;
  log?: Logger;
  principal: Principal;
  store: Store;
  /** Restricts calls to read actions (MCP read-only connections). */
  readOnly?: boolean;
  /** Who is calling, for the audit record. */
  source: 'agent' | 'mcp' | 'workflow';
  /** The origin the client reached (MCP's request, an agent chat's): ctx.origin without SVC_PUBLIC_URL. */
  origin?: string;
  /** The MCP client behind the call, for actions declaring `interactive` (ctx.mcp). */
  mcp?: McpClient;
  /** The agent making the call, with its approval overrides (SPEC 4.5); none for MCP clients. */
  agent?: { id: string; name: string; toolOverrides: ToolOverrides };
}

/** What a call resolves to: one built-in action or one custom tool, with its input. */
export type ToolTarget =
  | { kind: 'builtin'; plugin: PluginDef; actionName: string | undefined; input: Record<string, unknown> }
  | { kind: 'custom'; tool: CustomTool; input: Record<string, unknown> };

export type ToolOutcome =
  | { kind: 'result'; result: unknown; executionId: string }
  | { kind: 'error'; error: SvcError; executionId: string }
  /** Gated: the execution waits for a decision (SPEC 3.1). */
  | { kind: 'pending'; executionId: string; message: string };

export type RunResult = { status: 'success'; result: unknown } | { status: 'error' | 'timeout'; error: SvcError };

/** A custom tool as stored: one record whichever form (SPEC 2.5 Shape A or B) registered it. */
export interface CustomTool {
  id: string;
  store_id: string;
  name: string;
  shape: 'store' | 'gateway';
  description: string;
  category: string | null;
  input_schema: Record<string, unknown>;
  kind: 'http' | 'javascript';
  config: HttpToolConfig | { code: string };
  visibility: 'private' | 'public';
  requires_plan: Plan;
  requires_approval: boolean;
  /** An MCP call asks the human behind the client to confirm first (elicitation; issue 51). */
  requires_confirmation: boolean;
  approval_timeout_minutes: number;
  timeout_action: TimeoutAction;
  escalation_group: string | null;
  /** Sealed secrets (never leaves core/tools). */
  secrets: string | null;
  secret_names: string[];
  created_at: string;
  updated_at: string;
}
