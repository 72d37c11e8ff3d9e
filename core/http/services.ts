import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { Registry } from '../plugins/registry';
import { KeyResolver, adminAuthenticator, apiKeyAuthenticator, type Authenticator } from './auth';
import { createLogger, type Logger } from '../log';
import { RateLimiter, type PlanLimit } from './rate-limit';
import { McpSessions } from '../mcp/sessions';
import type { ToolOptions } from '../tools/catalog';

/** What the HTTP layer needs, built once per server (or per test). */
export interface Services {
  db: Db;
  clock: Clock;
  registry: Registry;
  keys: KeyResolver;
  rateLimiter: RateLimiter;
  /** Bearer token of the admin API; undefined disables it. */
  adminToken?: string;
  mcpSessions: McpSessions;
  /** How MCP tools are listed unless a connection asks otherwise. */
  mcpToolsMode: ToolOptions['mode'];
  /**
   * Whether a plain MCP tools/call may skip the SDK (core/mcp/fast-call.ts). Always on in service;
   * tests turn it off to hold the SDK path to the same answers.
   */
  mcpFastPath: boolean;
  /** Hosts the MCP endpoint answers for (DNS-rebinding guard); '*' allows any. */
  allowedHosts: string[];
  /** The ways a request may prove who it is, tried in order (the admin token before API keys). */
  authenticators: Authenticator[];
  log: Logger;
  /** Aborted when the process starts shutting down: streams end on it. */
  shutdown: AbortSignal;
}

export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'];

export function makeServices(opts: {
  db: Db;
  clock: Clock;
  registry: Registry;
  limits: Record<string, PlanLimit>;
  adminToken?: string;
  mcpToolsMode?: ToolOptions['mode'];
  mcpFastPath?: boolean;
  allowedHosts?: string[];
  log?: Logger;
  shutdown?: AbortSignal;
}): Services {
  const keys = new KeyResolver(opts.db, opts.clock);
  const log = opts.log ?? createLogger();
  // Plugins' credentials (users' tokens) come after the admin token and before API keys, whose
  // authenticator claims any credential that is not an admin token.
  const contributed = opts.registry.plugins.flatMap(
    (p) => p.authenticators?.({ db: opts.db, clock: opts.clock, registry: opts.registry, log, config: opts.registry.configOf(p.name) }) ?? [],
  );
  return {
    db: opts.db,
    clock: opts.clock,
    registry: opts.registry,
    keys,
    authenticators: [adminAuthenticator(opts.adminToken), ...contributed, apiKeyAuthenticator(keys)],
    log,
    shutdown: opts.shutdown ?? new AbortController().signal,
    rateLimiter: new RateLimiter(opts.db, opts.clock, opts.limits),
    adminToken: opts.adminToken,
    mcpSessions: new McpSessions(opts.db, opts.clock),
    mcpToolsMode: opts.mcpToolsMode ?? 'grouped',
    mcpFastPath: opts.mcpFastPath ?? true,
    allowedHosts: opts.allowedHosts ?? LOCAL_HOSTS,
  };
}
