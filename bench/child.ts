/** Shared by the bench server processes: how they tell bench/rest.ts they are ready. */
import { DEFAULT_LIMITS, type PlanLimit } from '../core/http/rate-limit';

/** The parent waits for this exact line on stdout to learn the port. */
export function announce(port: number) {
  console.log(`READY ${port}`);
}

/** Children are started by bench/rest.ts, which always passes these. */
export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is not set; run the benchmark with \`bun run bench\`.`);
    process.exit(2);
  }
  return v;
}

/**
 * Rate limits so high that the limiter does all its bookkeeping (leases, headers) but never
 * rejects: otherwise a benchmark would measure 429s.
 */
export const HIGH_LIMITS: Record<string, PlanLimit> = Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((plan) => [plan, { perMinute: 1_000_000_000, burst: 1_000_000_000 }]),
);
