import type { Ctx } from '../../core/sdk';
import type { UsersCtx } from './config';
import { cookies, randomToken, sameText, setCookie, sha256 } from './web';

export const SESSION_COOKIE = 'svc_session';
export const CSRF_COOKIE = 'svc_csrf';

export interface SignedIn {
  userId: string;
  email: string;
  name: string;
}

/** The signed-in user of a browser request, from the session cookie (the row holds its hash). */
export async function currentUser(ctx: Ctx): Promise<SignedIn | undefined> {
  const token = cookies(ctx.http?.request)[SESSION_COOKIE];
  if (!token) return undefined;
  const [row] = await ctx.db.query(
    `SELECT u.id, u.email, u.name FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [sha256(token), ctx.clock.now()],
  );
  return row ? { userId: row.id, email: row.email, name: row.name } : undefined;
}

/** Starts a session: the Set-Cookie header for it. */
export async function startSession(ctx: UsersCtx, userId: string): Promise<string> {
  const token = randomToken();
  const ttl = ctx.config.session_ttl_seconds;
  await ctx.db.query('INSERT INTO user_sessions (token_hash, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4)', [
    sha256(token),
    userId,
    new Date(ctx.clock.now().getTime() + ttl * 1000),
    ctx.clock.now(),
  ]);
  return setCookie(ctx.http?.request, SESSION_COOKIE, token, ttl);
}

export async function endSession(ctx: Ctx): Promise<string> {
  const token = cookies(ctx.http?.request)[SESSION_COOKIE];
  if (token) await ctx.db.query('DELETE FROM user_sessions WHERE token_hash = $1', [sha256(token)]);
  return setCookie(ctx.http?.request, SESSION_COOKIE, '', 0);
}

/**
 * CSRF protection by double submit: a random value in an HttpOnly SameSite cookie, repeated in a
 * hidden field of every form. Another site can make the browser send the cookie, but it can read
 * neither the cookie nor our page, so it cannot fill in the field.
 */
export function csrfFor(ctx: Ctx): { token: string; setCookie?: string } {
  const have = cookies(ctx.http?.request)[CSRF_COOKIE];
  if (have && have.length >= 32) return { token: have };
  const token = randomToken();
  return { token, setCookie: setCookie(ctx.http?.request, CSRF_COOKIE, token, 60 * 60 * 24) };
}

export function csrfValid(ctx: Ctx, submitted: unknown): boolean {
  const have = cookies(ctx.http?.request)[CSRF_COOKIE];
  return typeof submitted === 'string' && !!have && have.length >= 32 && sameText(have, submitted);
}

export const csrfField = (token: string) => `<input type="hidden" name="csrf_token" value="${token}">`;
