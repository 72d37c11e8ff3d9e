import type { Db } from '../../core/sdk';

const DAY_MS = 86_400_000;
/** An OAuth client registered (or a metadata document cached) that no grant or device login ever used is forgotten after this long. */
export const UNUSED_CLIENT_DAYS = 30;

/**
 * Daily housekeeping of sign-in and OAuth rows that can no longer be used: expired browser
 * sessions, sign-in throttles quiet for a day, codes and refresh tokens past their expiry (a used
 * one is kept until then, so a replay is still caught and revokes its grant), device logins a day
 * past theirs, and clients nobody ever used (dynamic registration is open to anyone: without
 * this, registrations would pile up). Admin-registered clients are never removed.
 */
export async function pruneExpired(db: Db, now: Date): Promise<Record<string, number>> {
  const dayAgo = new Date(now.getTime() - DAY_MS);
  const unusedSince = new Date(now.getTime() - UNUSED_CLIENT_DAYS * DAY_MS);
  const deleted = async (sql: string, params: unknown[]) => (await db.query(`${sql} RETURNING 1`, params)).length;
  return {
    user_sessions: await deleted('DELETE FROM user_sessions WHERE expires_at < $1', [now]),
    login_throttle: await deleted('DELETE FROM login_throttle WHERE next_at < $1', [dayAgo]),
    oauth_codes: await deleted('DELETE FROM oauth_codes WHERE expires_at < $1', [now]),
    oauth_refresh_tokens: await deleted('DELETE FROM oauth_refresh_tokens WHERE expires_at < $1', [now]),
    oauth_device_codes: await deleted('DELETE FROM oauth_device_codes WHERE expires_at < $1', [dayAgo]),
    oauth_clients: await deleted(
      // A metadata document's row only once its cached copy is stale too (it is fetched again if used).
      `DELETE FROM oauth_clients c WHERE created_at < $1 AND (kind = 'dynamic' OR (kind = 'metadata_document' AND metadata_expires_at < $2))
         AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.client_id)
         AND NOT EXISTS (SELECT 1 FROM oauth_device_codes d WHERE d.client_id = c.client_id)`,
      [unusedSince, now],
    ),
  };
}
