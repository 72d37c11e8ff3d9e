import { resolve } from 'node:path';
import { offsetClock, systemClock, type Clock } from './clock';
import { parseLimits, type PlanLimit } from './http/rate-limit';

export type Role = 'api' | 'worker' | 'all';

/** The one typed configuration: environment first, flags override (README, Configuration). */
export interface Config {
  port: number;
  role: Role;
  databaseUrl?: string;
  dataDir: string;
  poolSize: number;
  adminToken?: string;
  clock: Clock;
  rateLimits: Record<string, PlanLimit>;
  /** MCP tools listing: one tool per category (grouped) or per action (flat). */
  mcpTools: 'grouped' | 'flat';
  /** Hosts the MCP endpoint answers for (DNS-rebinding guard). */
  allowedHosts: string[];
  /** SVC_SHUTDOWN_GRACE_S: how long requests and jobs in flight may take to finish after SIGTERM. */
  shutdownGraceMs: number;
  /** How long `serve` waits at start for an unreachable PostgreSQL (SVC_DB_WAIT_S). */
  dbWaitMs: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined>, flags: { port?: string; role?: string; tools?: string } = {}): Config {
  const portText = flags.port ?? env.PORT ?? '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new ConfigError(`Invalid port '${portText}': expected a number from 0 to 65535.`);
  const role = (flags.role ?? 'all') as Role;
  if (!['api', 'worker', 'all'].includes(role)) throw new ConfigError(`Invalid role '${role}': expected api, worker or all.`);
  let clock = systemClock;
  if (env.SVC_NOW) {
    const start = new Date(env.SVC_NOW);
    if (Number.isNaN(start.getTime())) throw new ConfigError(`Invalid SVC_NOW '${env.SVC_NOW}': expected an ISO 8601 timestamp.`);
    clock = offsetClock(start);
  }
  const poolSize = Number(env.SVC_DB_POOL ?? 10);
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new ConfigError(`Invalid SVC_DB_POOL '${env.SVC_DB_POOL}'.`);
  let rateLimits;
  try {
    rateLimits = parseLimits(env.SVC_RATE_LIMITS);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const mcpTools = (flags.tools ?? env.SVC_MCP_TOOLS ?? 'grouped') as Config['mcpTools'];
  if (mcpTools !== 'grouped' && mcpTools !== 'flat') throw new ConfigError(`Invalid tools mode '${mcpTools}': expected grouped or flat.`);
  const allowedHosts = [
    'localhost',
    '127.0.0.1',
    '::1',
    ...(env.SVC_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  ];
  const graceText = env.SVC_SHUTDOWN_GRACE_S ?? '10';
  const grace = Number(graceText);
  if (!/^\d+(\.\d+)?$/.test(graceText.trim()) || grace > 3600)
    throw new ConfigError(`Invalid SVC_SHUTDOWN_GRACE_S '${graceText}': expected seconds, from 0 to 3600.`);
  const waitText = env.SVC_DB_WAIT_S ?? '30';
  if (!/^\d+(\.\d+)?$/.test(waitText.trim()) || Number(waitText) > 86400)
    throw new ConfigError(`Invalid SVC_DB_WAIT_S '${waitText}': expected seconds, from 0 to 86400.`);
  return {
    dbWaitMs: Number(waitText) * 1000,
    shutdownGraceMs: grace * 1000,
    mcpTools,
    allowedHosts,
    port,
    role,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.SVC_DATA_DIR ?? './data'),
    poolSize,
    adminToken: env.SVC_ADMIN_TOKEN || undefined,
    clock,
    rateLimits,
  };
}
