import { Type } from '@sinclair/typebox';
import { action, type Ctx } from '../../core/sdk';
import { checkPassword, findOrCreateUser, MIN_PASSWORD } from './accounts';
import { csrfFailure, FAILED } from './login';
import { csrfField, csrfFor, csrfValid, startSession } from './session';
import { escapeHtml, html, page, redirect, sha256 } from './web';

/** The invitation link's page: join the store, creating the account or proving it is yours. */

const Form = Type.Record(Type.String(), Type.String());
const GONE = 'This invitation link is not valid: it was used already, has expired, or was mistyped. Ask for a new one.';

async function invitation(ctx: Ctx, token: unknown) {
  if (typeof token !== 'string' || token.length > 200) return undefined;
  const [row] = await ctx.db.query(
    `SELECT i.id, i.store_id, i.email, i.role, s.name AS store_name, u.id AS user_id FROM invitations i JOIN stores s ON s.id = i.store_id
     LEFT JOIN users u ON lower(u.email) = lower(i.email) WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.expires_at > $2`,
    [sha256(token), ctx.clock.now()],
  );
  return row;
}

function form(ctx: Ctx, inv: any, token: string, error?: string, status = 200) {
  const csrf = csrfFor(ctx);
  const fields = inv.user_id
    ? `<label for="password">Password of ${escapeHtml(inv.email)}</label><input id="password" name="password" type="password" autocomplete="current-password" required>`
    : `<label for="name">Your name</label><input id="name" name="name" autocomplete="name">
<label for="password">Choose a password (at least ${MIN_PASSWORD} characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required>`;
  const body = page(
    'Join a store',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<p>You are invited to <strong>${escapeHtml(inv.store_name)}</strong> as ${escapeHtml(inv.role)}.</p>
<form method="post" action="/auth/invitation">${csrfField(csrf.token)}<input type="hidden" name="token" value="${escapeHtml(token)}">${fields}
<button type="submit">Join</button></form>`,
  );
  return html(status, body, csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {});
}

export const inviteActions = {
  invitation_page: action({
    kind: 'read',
    description: "The invitation link's page (HTML).",
    input: Form,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'GET', path: '/auth/invitation', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      const inv = await invitation(ctx, input.token);
      return inv ? form(ctx, inv, input.token!) : html(404, page('Invitation', `<p class="error">${GONE}</p>`));
    },
  }),
  accept_invitation: action({
    kind: 'write',
    description: 'Accept an invitation (HTML form post): joins the store and signs in.',
    input: Form,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'POST', path: '/auth/invitation', auth: 'public', scope: 'global', body: 'form', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      if (!csrfValid(ctx, input.csrf_token)) return csrfFailure(ctx);
      const inv = await invitation(ctx, input.token);
      if (!inv) return html(404, page('Invitation', `<p class="error">${GONE}</p>`));
      const password = String(input.password ?? '');
      let userId: string;
      if (inv.user_id) {
        const user = await checkPassword(ctx.db, inv.email, password);
        if (!user) return form(ctx, inv, input.token!, FAILED, 401);
        userId = user.id;
      } else {
        if (password.length < MIN_PASSWORD || password.length > 512)
          return form(ctx, inv, input.token!, `Choose a password of at least ${MIN_PASSWORD} characters.`, 400);
        userId = (await findOrCreateUser(ctx.db, ctx.clock, { email: inv.email, name: String(input.name ?? '').slice(0, 200), password })).id;
      }
      const accepted = await ctx.db.transaction(async (tx) => {
        const done = await tx.query('UPDATE invitations SET accepted_at = $2 WHERE id = $1 AND accepted_at IS NULL RETURNING id', [
          inv.id,
          ctx.clock.now(),
        ]);
        if (!done.length) return false;
        await tx.query(
          'INSERT INTO store_memberships (user_id, store_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id, store_id) DO NOTHING',
          [userId, inv.store_id, inv.role, ctx.clock.now()],
        );
        return true;
      });
      if (!accepted) return html(404, page('Invitation', `<p class="error">${GONE}</p>`));
      return redirect('/auth/login', [['Set-Cookie', await startSession(ctx, userId)]]);
    },
  }),
};
