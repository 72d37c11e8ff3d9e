import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { PluginDef } from '../plugins/contract';
import { KeyResolver } from './auth';
import { RateLimiter, type PlanLimit } from './rate-limit';
import { McpSessions } from '../mcp/sessions';
import type { ToolOptions } from '../mcp/tools';

/** What the HTTP layer needs, built once per server (or per test). */
export interface Services {
  db: Db;
  clock: Clock;
  plugins: PluginDef[];
  keys: KeyResolver;
  rateLimiter: RateLimiter;
  /** Bearer token of the admin API; undefined disables it. */
  adminToken?: string;
  mcpSessions: McpSessions;
  /** How MCP tools are listed unless a connection asks otherwise. */
  mcpToolsMode: ToolOptions['mode'];
  /** Hosts the MCP endpoint answers for (DNS-rebinding guard); '*' allows any. */
  allowedHosts: string[];
  /** Aborted when the process begins shutting down: open streams end themselves (core/lifecycle.ts). */
  shutdown?: AbortSignal;
}

export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'];

export function makeServices(opts: {
  db: Db;
  clock: Clock;
  plugins: PluginDef[];
  limits: Record<string, PlanLimit>;
  adminToken?: string;
  mcpToolsMode?: ToolOptions['mode'];
  allowedHosts?: string[];
  shutdown?: AbortSignal;
}): Services {
  return {
    db: opts.db,
    clock: opts.clock,
    plugins: opts.plugins,
    keys: new KeyResolver(opts.db, opts.clock),
    rateLimiter: new RateLimiter(opts.db, opts.clock, opts.limits),
    adminToken: opts.adminToken,
    mcpSessions: new McpSessions(opts.db, opts.clock),
    mcpToolsMode: opts.mcpToolsMode ?? 'grouped',
    allowedHosts: opts.allowedHosts ?? LOCAL_HOSTS,
    shutdown: opts.shutdown,
  };
}
