import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors } from '../errors';

export interface PlanLimit {
  perMinute: number;
  /** Requests per second one API process admits for a store. */
  burst: number;
}

/** Defaults per plan; SVC_RATE_LIMITS overrides them (README, Rate limits). */
export const DEFAULT_LIMITS: Record<string, PlanLimit> = {
  free: { perMinute: 120, burst: 20 },
  starter: { perMinute: 600, burst: 50 },
  pro: { perMinute: 3_000, burst: 150 },
  enterprise: { perMinute: 12_000, burst: 500 },
};

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

interface StoreWindow {
  window: number; // minute number since the epoch
  known: number; // count in the database as of our last write (includes other processes)
  pending: number; // our requests not yet written
  second: number;
  inSecond: number;
}

export interface RateDecision {
  headers: Record<string, string>;
}

/**
 * Per-store limits: requests per minute (shared by every process through rate_limit_windows)
 * plus a per-second burst (per process). Below half of the minute's budget a process counts
 * in memory and writes its count every FLUSH_MS; from half on it writes on each request and
 * decides on the shared total, so several processes together never admit more than the limit.
 * Once the limit is reached it rejects without touching the database until the minute ends.
 */
export class RateLimiter {
  static FLUSH_MS = 250;
  private windows = new Map<string, StoreWindow>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private db: Db, private clock: Clock, private limits: Record<string, PlanLimit>) {}

  async check(storeId: string, plan: string): Promise<RateDecision> {
    const limit = this.limits[plan] ?? DEFAULT_LIMITS.free;
    const nowMs = this.clock.now().getTime();
    const minute = Math.floor(nowMs / 60_000);
    const second = Math.floor(nowMs / 1000);
    let w = this.windows.get(storeId);
    if (!w || w.window !== minute) {
      if (w?.pending) void this.write(storeId, w.window, w.pending).catch(() => {});
      w = { window: minute, known: 0, pending: 0, second, inSecond: 0 };
      this.windows.set(storeId, w);
    }
    if (w.second !== second) {
      w.second = second;
      w.inSecond = 0;
    }
    const resetAt = (minute + 1) * 60;
    const headers = (remaining: number) => ({
      'X-RateLimit-Limit': String(limit.perMinute),
      'X-RateLimit-Remaining': String(Math.max(0, remaining)),
      'X-RateLimit-Reset': String(resetAt),
    });
    const reject = (retryAfter: number) => {
      const e = errors.rateLimited(retryAfter);
      Object.assign(e.headers, headers(limit.perMinute - w!.known - w!.pending));
      return e;
    };
    if (w.known + w.pending >= limit.perMinute) throw reject(Math.max(1, resetAt - Math.floor(nowMs / 1000)));
    if (w.inSecond >= limit.burst) throw reject(1);
    w.inSecond++;
    if (w.known + w.pending + 1 > limit.perMinute / 2) {
      const n = w.pending + 1;
      w.pending = 0;
      w.known = await this.write(storeId, minute, n);
      if (w.known > limit.perMinute) throw reject(Math.max(1, resetAt - Math.floor(nowMs / 1000)));
    } else {
      w.pending++;
      this.timer ??= setInterval(() => void this.flush().catch(() => {}), RateLimiter.FLUSH_MS);
      this.timer.unref?.();
    }
    return { headers: headers(limit.perMinute - w.known - w.pending) };
  }

  /** Writes every process-local count; also learns the other processes' counts. */
  async flush() {
    for (const [storeId, w] of this.windows) {
      if (!w.pending) continue;
      const n = w.pending;
      w.pending = 0;
      const total = await this.write(storeId, w.window, n);
      if (this.windows.get(storeId) === w) w.known = Math.max(w.known, total);
    }
  }

  private async write(storeId: string, minute: number, n: number): Promise<number> {
    const [row] = await this.db.query<{ count: number }>(
      `INSERT INTO rate_limit_windows (store_id, window_start, count) VALUES ($1, to_timestamp($2), $3)
       ON CONFLICT (store_id, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
       RETURNING count`,
      [storeId, minute * 60, n],
    );
    return Number(row.count);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Old windows are useless after their minute; the maintenance timer deletes them. */
export async function purgeRateWindows(db: Db, clock: Clock) {
  await db.query('DELETE FROM rate_limit_windows WHERE window_start < $1', [new Date(clock.now().getTime() - 10 * 60_000)]);
}
