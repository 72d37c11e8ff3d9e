import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors } from '../errors';
import { PLAN_LIMITS } from '../plans';

export interface PlanLimit {
  perMinute: number;
  /** Requests per second one API process admits for a store. */
  burst: number;
}

/** Defaults per plan; SVC_RATE_LIMITS overrides them (README, Rate limits). */
export const DEFAULT_LIMITS: Record<string, PlanLimit> = Object.fromEntries(
  Object.entries(PLAN_LIMITS).map(([plan, l]) => [plan, { perMinute: l.requests_per_minute!, burst: l.burst_per_second! }]),
);

/** Parses `plan=perMinute:burst,...`, e.g. `free=60:10,enterprise=1000000:100000`. */
export function parseLimits(spec: string | undefined): Record<string, PlanLimit> {
  const limits = { ...DEFAULT_LIMITS };
  for (const part of (spec ?? '').split(',').filter(Boolean)) {
    const m = /^(free|starter|pro|enterprise)=(\d+):(\d+)$/.exec(part.trim());
    if (!m) throw new Error(`SVC_RATE_LIMITS: cannot read '${part}'; expected plan=perMinute:burst`);
    limits[m[1]] = { perMinute: Number(m[2]), burst: Number(m[3]) };
  }
  return limits;
}

function writeHeaders(headers: Record<string, string>, limit: PlanLimit, w: StoreWindow) {
  headers['X-RateLimit-Limit'] = String(limit.perMinute);
  headers['X-RateLimit-Remaining'] = String(Math.max(0, limit.perMinute - w.used + w.tokens));
  headers['X-RateLimit-Reset'] = String((w.minute + 1) * 60);
}

function rejection(limit: PlanLimit, w: StoreWindow, retryAfter: number) {
  const e = errors.rateLimited(retryAfter);
  writeHeaders(e.headers, limit, w);
  return e;
}

/** Takes one token from the window, or throws 429 when this minute's shared budget is gone. */
function admit(limit: PlanLimit, w: StoreWindow, second: number, headers: Record<string, string>) {
  if (w.tokens === 0) throw rejection(limit, w, Math.max(1, (w.minute + 1) * 60 - second));
  w.tokens--;
  w.inSecond++;
  writeHeaders(headers, limit, w);
}

interface StoreWindow {
  minute: number; // minute number since the epoch
  tokens: number; // requests this process may still admit from its lease
  used: number; // the shared count as of our last lease (all processes' leases together)
  exhausted: boolean; // the shared budget of this minute is gone
  second: number;
  inSecond: number;
}

/**
 * Per-store limits: requests per minute, shared by every API process, plus a per-second burst
 * per process. Each process leases a slice of the minute's budget from rate_limit_windows
 * (1/50 of the limit, less when little is left) and admits from it in memory, so the database is
 * touched once per slice, never per request, and all processes together never admit more than
 * the limit. A process that goes idle holding a slice can leave at most that slice unused.
 */
export class RateLimiter {
  private windows = new Map<string, StoreWindow>();

  constructor(
    private db: Db,
    private clock: Clock,
    private limits: Record<string, PlanLimit>,
  ) {}

  /**
   * Admits one request or throws 429; the X-RateLimit-* headers are written into `headers`. Only a
   * request that needs a new lease waits (a promise); the rest are decided in memory, synchronously.
   */
  check(storeId: string, plan: string, headers: Record<string, string> = {}): void | Promise<void> {
    const limit = this.limits[plan] ?? DEFAULT_LIMITS.free;
    const nowMs = this.clock.now().getTime();
    const minute = Math.floor(nowMs / 60_000);
    const second = Math.floor(nowMs / 1000);
    let w = this.windows.get(storeId);
    if (!w || w.minute !== minute) {
      w = { minute, tokens: 0, used: 0, exhausted: false, second, inSecond: 0 };
      if (this.windows.size > 100_000) this.windows.clear();
      this.windows.set(storeId, w);
    }
    if (w.second !== second) {
      w.second = second;
      w.inSecond = 0;
    }
    if (w.inSecond >= limit.burst) throw rejection(limit, w, 1);
    if (w.tokens === 0 && !w.exhausted) return this.lease(storeId, w, limit.perMinute).then(() => admit(limit, w, second, headers));
    admit(limit, w, second, headers);
  }

  /** Takes a slice of this minute's shared budget in one statement; the row lock orders processes. */
  private async lease(storeId: string, w: StoreWindow, perMinute: number) {
    const want = Math.max(1, Math.ceil(perMinute / 50));
    const [row] = await this.db.query<{ count: number; last_grant: number }>(
      `INSERT INTO rate_limit_windows AS r (store_id, window_start, count, last_grant)
       VALUES ($1, to_timestamp($2), LEAST($3::int, $4::int), LEAST($3::int, $4::int))
       ON CONFLICT (store_id, window_start) DO UPDATE
         SET last_grant = GREATEST(0, LEAST($3::int, $4::int - r.count)),
             count = r.count + GREATEST(0, LEAST($3::int, $4::int - r.count))
       RETURNING count, last_grant`,
      [storeId, w.minute * 60, want, perMinute],
    );
    w.tokens += Number(row.last_grant);
    w.used = Number(row.count);
    if (w.used >= perMinute) w.exhausted = true;
  }
}

/** Old windows are useless after their minute; the maintenance timer deletes them. */
