import { Type } from '@sinclair/typebox';
import { action, type Ctx } from '../../core/sdk';
import { audiencesOf } from './authenticator';
import { decideDevice, normalizeUserCode, pendingByUserCode, startDevice } from './device';
import { GrantError } from './grants';
import { csrfFailure } from './login';
import { describeScope, isRole } from './roles';
import { csrfField, csrfFor, csrfValid, currentUser } from './session';
import { storesOfUser } from './switch';
import { authenticateClient, oauthError, parseBody, RawBody } from './token';
import { escapeHtml, html, jsonResponse, page, redirect } from './web';

/** RFC 8628 over HTTP: the device authorization endpoint, and the page where the human answers. */

const Page = Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' });
const Form = Type.Record(Type.String(), Type.String());

function codeForm(ctx: Ctx, message = '', typed = '') {
  const csrf = csrfFor(ctx);
  const body = page(
    'Connect a device',
    `${message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : ''}<p>Enter the code your device or agent shows.</p>
<form method="get" action="/auth/device"><label for="user_code">Code</label><input id="user_code" name="user_code" value="${escapeHtml(typed)}" autocomplete="off" required>
<button type="submit">Continue</button></form>`,
  );
  return html(message ? 400 : 200, body, csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {});
}

async function consent(ctx: Ctx, code: string, user: { userId: string; email: string }) {
  const pending = await pendingByUserCode(ctx, code);
  if (!pending) return codeForm(ctx, 'That code is unknown or has expired. Check it, or start again on the device.', code);
  const stores = await storesOfUser(ctx, user.userId);
  if (!stores.length)
    return html(403, page('Cannot continue', `<p class="error" role="alert">${escapeHtml(user.email)} is not a member of any store.</p>`));
  const csrf = csrfFor(ctx);
  const scopes = pending.scopes.length
    ? pending.scopes.map((s) => `<li>${escapeHtml(describeScope(s))} <small>(${escapeHtml(s)})</small></li>`).join('')
    : '<li>everything your role in the store allows</li>';
  const picker = `<label for="store_id">Store</label><select id="store_id" name="store_id">${stores.map((s) => `<option value="${s.id}">${escapeHtml(s.name)} (${s.role})</option>`).join('')}</select>`;
  const body = page(
    'Allow this device?',
    `<p><strong>${escapeHtml(pending.client_name)}</strong> (code <code>${pending.user_code}</code>) wants to act for you (${escapeHtml(user.email)}) and:</p><ul>${scopes}</ul>
<p>Only allow it if you started this on your own device or agent.</p>
<form method="post" action="/auth/device">${csrfField(csrf.token)}<input type="hidden" name="user_code" value="${pending.user_code}">${picker}
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
  return html(200, body, csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {});
}

export const deviceActions = {
  device_authorization: action({
    kind: 'write',
    description:
      'OAuth device authorization endpoint (RFC 8628): a device_code to poll the token endpoint with, and a user_code for the human to enter at verification_uri.',
    input: RawBody,
    output: Page,
    rest: {
      method: 'POST',
      path: '/auth/device_authorization',
      auth: 'public',
      scope: 'global',
      body: 'raw',
      response: 'raw',
      contentType: 'application/json',
    },
    handler: async (ctx, input) => {
      const body = parseBody(input);
      if (!body) return oauthError(400, 'invalid_request', 'The body must be form-encoded (or a JSON object).');
      const client = await authenticateClient(ctx, body);
      if (client instanceof Response) return client;
      const base = ctx.origin;
      const resource = typeof body.resource === 'string' ? body.resource : base;
      if (!audiencesOf(base).includes(resource))
        return oauthError(400, 'invalid_target', `resource must be this server (${base}) or its MCP endpoint.`);
      try {
        return jsonResponse(200, await startDevice(ctx, client.client_id, body.scope, resource, base));
      } catch (e) {
        if (e instanceof GrantError) return oauthError(400, e.error, e.message);
        throw e;
      }
    },
  }),
  device_page: action({
    kind: 'read',
    description: "The page where the human enters a device's user code, signs in if needed and allows or denies it (HTML).",
    input: Form,
    output: Page,
    rest: { method: 'GET', path: '/auth/device', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      const typed = normalizeUserCode(input.user_code);
      const user = await currentUser(ctx);
      if (!user) return redirect(`/auth/login?return_to=${encodeURIComponent(`/auth/device${typed ? `?user_code=${typed}` : ''}`)}`);
      if (!typed) return input.user_code ? codeForm(ctx, 'A code has 8 letters, like BCDF-GHJK.', input.user_code) : codeForm(ctx);
      return consent(ctx, typed, user);
    },
  }),
  device_decision: action({
    kind: 'write',
    description: "The device page's answer: allow (for the chosen store) or deny.",
    input: Form,
    output: Page,
    rest: { method: 'POST', path: '/auth/device', auth: 'public', scope: 'global', body: 'form', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      if (!csrfValid(ctx, input.csrf_token)) return csrfFailure(ctx);
      const user = await currentUser(ctx);
      if (!user) return redirect('/auth/login?return_to=/auth/device');
      const code = normalizeUserCode(input.user_code);
      if (input.decision !== 'allow') {
        const ok = await decideDevice(ctx, code, 'deny');
        return html(ok ? 200 : 400, page('Denied', `<p>${ok ? 'The device was not connected.' : 'That code is unknown or has expired.'}</p>`));
      }
      const storeId = String(input.store_id ?? '');
      const [m] = /^[0-9a-f-]{36}$/i.test(storeId)
        ? await ctx.db.query('SELECT role FROM store_memberships WHERE user_id = $1 AND store_id = $2', [user.userId, storeId])
        : [];
      if (!m || !isRole(m.role)) return html(403, page('Cannot continue', '<p class="error" role="alert">You are not a member of that store.</p>'));
      const ok = await decideDevice(ctx, code, { userId: user.userId, storeId, role: m.role });
      if (!ok) return codeForm(ctx, 'That code is unknown or has expired, or your role in that store allows none of the requested scopes.');
      ctx.log.info('device authorized', { user_id: user.userId, store_id: storeId });
      return html(200, page('Device connected', '<p>You can close this page and return to your device.</p>'));
    },
  }),
};
