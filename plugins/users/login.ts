import { Type } from '@sinclair/typebox';
import { action, type Ctx } from '../../core/sdk';
import { checkPassword } from './accounts';
import { csrfField, csrfFor, csrfValid, currentUser, endSession, startSession } from './session';
import { claimAttempt, settleAttempt } from './throttle';
import { escapeHtml, html, page, redirect } from './web';

/** Browser sign-in: server-rendered forms, no JavaScript (issue 11, "Browser sign-in"). */

export const FAILED = 'Email or password is incorrect.';
const Form = Type.Record(Type.String(), Type.String());
const Page = Type.Object({}, { description: 'An HTML page, or a 303 redirect.' });

/** Where to go after signing in: a path on this server only (never an open redirect). */
export const safeReturn = (to: unknown) => (typeof to === 'string' && /^\/(?![\/\\])/.test(to) && to.length < 4000 ? to : '/auth/login');

function loginForm(ctx: Ctx, opts: { returnTo: string; email?: string; error?: string; status?: number; extra?: Record<string, string> }) {
  const csrf = csrfFor(ctx);
  const body = page(
    'Sign in',
    `${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<form method="post" action="/auth/login">${csrfField(csrf.token)}
<input type="hidden" name="return_to" value="${escapeHtml(opts.returnTo)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(opts.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`,
  );
  return html(opts.status ?? 200, body, { ...(csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {}), ...opts.extra });
}

export function csrfFailure(ctx: Ctx) {
  return html(
    403,
    page(
      'Form expired',
      '<p class="error" role="alert">This form has expired or was not sent by this site. Go back, reload the page and try again.</p>',
    ),
  );
}

export const loginActions = {
  login_page: action({
    kind: 'read',
    description: 'The sign-in page (HTML).',
    input: Form,
    output: Page,
    rest: { method: 'GET', path: '/auth/login', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      const user = await currentUser(ctx);
      if (!user) return loginForm(ctx, { returnTo: safeReturn(input.return_to) });
      const csrf = csrfFor(ctx);
      const body = page(
        'Signed in',
        `<p>You are signed in as ${escapeHtml(user.email)}.</p><form method="post" action="/auth/logout">${csrfField(csrf.token)}<button type="submit">Sign out</button></form>`,
      );
      return html(200, body, csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {});
    },
  }),
  login: action({
    kind: 'write',
    description: 'Sign in with email and password (HTML form post).',
    input: Form,
    output: Page,
    rest: { method: 'POST', path: '/auth/login', auth: 'public', scope: 'global', body: 'form', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      if (!csrfValid(ctx, input.csrf_token)) return csrfFailure(ctx);
      const returnTo = safeReturn(input.return_to);
      const email = String(input.email ?? '')
        .trim()
        .slice(0, 320);
      const account = `account:${email.toLowerCase()}`;
      const keys = [account, `ip:${ctx.http?.clientIp ?? 'unknown'}`];
      const claim = await claimAttempt(ctx, keys);
      if (!claim.ok)
        return loginForm(ctx, {
          returnTo,
          email,
          status: 429,
          error: `Too many sign-in attempts. Wait ${claim.retryAfter} seconds and try again.`,
          extra: { 'Retry-After': String(claim.retryAfter) },
        });
      const user = email ? await checkPassword(ctx.db, email, String(input.password ?? '')) : undefined;
      await settleAttempt(ctx, keys, !!user, account);
      if (!user) {
        ctx.log.info('sign-in failed', { reason: 'bad_credentials' });
        return loginForm(ctx, { returnTo, email, status: 401, error: FAILED });
      }
      ctx.log.info('signed in', { user_id: user.id });
      return redirect(returnTo, [['Set-Cookie', await startSession(ctx, user.id)]]);
    },
  }),
  logout_page: action({
    kind: 'read',
    description: 'A page with the sign-out button (HTML).',
    input: Form,
    output: Page,
    rest: { method: 'GET', path: '/auth/logout', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
    handler: async (ctx) => {
      const csrf = csrfFor(ctx);
      const body = page(
        'Sign out',
        `<form method="post" action="/auth/logout">${csrfField(csrf.token)}<button type="submit">Sign out</button></form>`,
      );
      return html(200, body, csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {});
    },
  }),
  logout: action({
    kind: 'write',
    description: 'Sign out: ends the browser session (HTML form post).',
    input: Form,
    output: Page,
    rest: { method: 'POST', path: '/auth/logout', auth: 'public', scope: 'global', body: 'form', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      if (!csrfValid(ctx, input.csrf_token)) return csrfFailure(ctx);
      return redirect('/auth/login', [['Set-Cookie', await endSession(ctx)]]);
    },
  }),
};
