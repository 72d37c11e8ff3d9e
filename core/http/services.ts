import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { PluginDef } from '../plugins/contract';
import { KeyResolver } from './auth';
import { RateLimiter, type PlanLimit } from './rate-limit';

/** What the HTTP layer needs, built once per server (or per test). */
export interface Services {
  db: Db;
  clock: Clock;
  plugins: PluginDef[];
  keys: KeyResolver;
  rateLimiter: RateLimiter;
  /** Bearer token of the admin API; undefined disables it. */
  adminToken?: string;
}

export function makeServices(opts: { db: Db; clock: Clock; plugins: PluginDef[]; limits: Record<string, PlanLimit>; adminToken?: string }): Services {
  return {
    db: opts.db,
    clock: opts.clock,
    plugins: opts.plugins,
    keys: new KeyResolver(opts.db, opts.clock),
    rateLimiter: new RateLimiter(opts.db, opts.clock, opts.limits),
    adminToken: opts.adminToken,
  };
}
