import type { Ctx, Db } from '../../core/sdk';

/**
 * Failed sign-ins slow the next attempt, per account and per client address: after n failures the
 * next try waits 2^(n-1) seconds (at most 15 minutes). An attempt first claims its keys, moving
 * `next_at` forward while it checks the password, so parallel guesses cannot all get through in
 * the same instant: all but one are told to wait.
 */
const HOLD_MS = 10_000;
const MAX_DELAY_S = 15 * 60;

export const delaySeconds = (failures: number) => (failures <= 0 ? 0 : Math.min(2 ** (failures - 1), MAX_DELAY_S));

/** Claims the keys (the account's first) for one attempt; returns the seconds to wait instead when any is not due. */
export async function claimAttempt(ctx: Ctx, keys: string[]): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx: Db) => {
    for (const key of keys)
      await tx.query('INSERT INTO login_throttle (key, failures, next_at) VALUES ($1, 0, $2) ON CONFLICT (key) DO NOTHING', [key, now]);
    const rows = await tx.query<{ key: string; next_at: string; failures: number }>(
      'SELECT key, next_at, failures FROM login_throttle WHERE key = ANY($1) ORDER BY key FOR UPDATE',
      [keys],
    );
    const wait = Math.max(0, ...rows.map((r) => new Date(r.next_at).getTime() - now.getTime()));
    if (wait > 0) return { ok: false as const, retryAfter: Math.ceil(wait / 1000) };
    // An account is checked one attempt at a time; an address only once it has failed (so people
    // behind one office address can sign in together until someone there guesses wrong).
    const hold = rows.filter((r) => r.key === keys[0] || r.failures > 0).map((r) => r.key);
    await tx.query('UPDATE login_throttle SET next_at = $2 WHERE key = ANY($1)', [hold, new Date(now.getTime() + HOLD_MS)]);
    return { ok: true as const };
  });
}

/** After the check: a failure counts and sets the delay; a success clears the account's record. */
export async function settleAttempt(ctx: Ctx, keys: string[], succeeded: boolean, accountKey?: string) {
  const now = ctx.clock.now();
  if (succeeded) {
    if (accountKey) await ctx.db.query('DELETE FROM login_throttle WHERE key = $1', [accountKey]);
    await ctx.db.query('UPDATE login_throttle SET next_at = $2 WHERE key = ANY($1)', [keys, now]);
    return;
  }
  for (const key of keys) {
    const [row] = await ctx.db.query<{ failures: number }>('UPDATE login_throttle SET failures = failures + 1 WHERE key = $1 RETURNING failures', [
      key,
    ]);
    await ctx.db.query('UPDATE login_throttle SET next_at = $2 WHERE key = $1', [
      key,
      new Date(now.getTime() + delaySeconds(row?.failures ?? 1) * 1000),
    ]);
  }
}
