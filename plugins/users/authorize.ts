import { Type } from '@sinclair/typebox';
import { action, type Ctx } from '../../core/sdk';
import { audiencesOf } from './authenticator';
import { ClientMetadataError, redirectMatches, type Client } from './clients';
import { findClient, isMetadataUrl } from './client-metadata';
import { createGrantWithCode } from './grants';
import { csrfFailure } from './login';
import { describeScope, grantable, isRole, scopeUniverse } from './roles';
import { csrfField, csrfFor, csrfValid, currentUser } from './session';
import { escapeHtml, html, page, redirect } from './web';

/** GET /auth/authorize (SPEC 4.9): sign in if needed, then consent; POST records the decision. */

type Params = Record<string, string | undefined>;
type Parsed =
  | { kind: 'fatal'; message: string }
  | { kind: 'redirect'; location: string }
  | {
      kind: 'ok';
      client: Client;
      redirectUri: string;
      scopes: string[];
      state?: string;
      challenge: string | null;
      resource: string;
      error: (code: string, description: string) => string;
    };

const FIELDS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource'];

/**
 * Checks an authorization request. Until the client and its redirect URI are known good, errors
 * are shown here and never redirected (an unregistered redirect_uri is never sent anywhere);
 * after that they go back to the client as `error=` (RFC 6749 4.1.2.1).
 */
async function parse(ctx: Ctx, p: Params): Promise<Parsed> {
  let client: Client | undefined;
  try {
    client = await findClient(ctx, p.client_id);
  } catch (e) {
    if (!(e instanceof ClientMetadataError)) throw e;
    ctx.log.info('client metadata document refused', {
      client_id: String(p.client_id)
        .replace(/\/\/[^/@]*@/, '//')
        .slice(0, 200),
      reason: e.message,
    });
    return { kind: 'fatal', message: `This application cannot be verified. ${e.message}` };
  }
  if (!client) return { kind: 'fatal', message: 'This application is not registered with this server (unknown client_id).' };
  const redirectUri = p.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
  if (!redirectUri) return { kind: 'fatal', message: 'The request names no redirect_uri.' };
  if (!redirectMatches(client.redirect_uris, redirectUri))
    return { kind: 'fatal', message: 'The redirect_uri is not one this application registered.' };
  const issuer = ctx.origin;
  const error = (code: string, description: string) => {
    const url = new URL(redirectUri);
    url.searchParams.set('error', code);
    url.searchParams.set('error_description', description);
    if (p.state !== undefined) url.searchParams.set('state', p.state);
    url.searchParams.set('iss', issuer);
    return url.toString();
  };
  const bad = (code: string, description: string): Parsed => ({ kind: 'redirect', location: error(code, description) });
  if (p.response_type !== 'code') return bad('unsupported_response_type', 'response_type must be code.');
  const challenge = p.code_challenge ?? null;
  if (challenge !== null && (p.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)))
    return bad('invalid_request', 'PKCE needs code_challenge_method=S256 and a 43-character code_challenge.');
  if (challenge === null && !client.confidential)
    return bad('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  const scopes = (p.scope ?? '').split(' ').filter(Boolean);
  const universe = scopeUniverse(ctx.registry);
  const unknown = scopes.find((s) => !universe.includes(s));
  if (unknown) return bad('invalid_scope', `Unknown scope: ${unknown}.`);
  const resource = p.resource ?? issuer;
  if (!audiencesOf(issuer).includes(resource))
    return bad('invalid_target', `resource must be this server (${issuer}) or its MCP endpoint (${issuer}/agent/mcp).`);
  return { kind: 'ok', client, redirectUri, scopes, state: p.state, challenge, resource, error };
}

const pick = (input: Record<string, unknown>): Params =>
  Object.fromEntries(FIELDS.filter((f) => typeof input[f] === 'string').map((f) => [f, input[f] as string]));
const errorPage = (message: string, status = 400) =>
  html(status, page('Cannot continue', `<p class="error" role="alert">${escapeHtml(message)}</p>`));

async function storesOf(ctx: Ctx, userId: string): Promise<{ id: string; name: string; role: string }[]> {
  return ctx.db.query(
    'SELECT s.id, s.name, m.role FROM store_memberships m JOIN stores s ON s.id = m.store_id WHERE m.user_id = $1 ORDER BY s.name, s.id',
    [userId],
  );
}

function consentPage(
  ctx: Ctx,
  params: Params,
  req: Extract<Parsed, { kind: 'ok' }>,
  stores: { id: string; name: string; role: string }[],
  email: string,
) {
  const csrf = csrfFor(ctx);
  const hidden = Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v!)}">`)
    .join('');
  const scopes = req.scopes.length
    ? req.scopes.map((s) => `<li>${escapeHtml(describeScope(s))} <small>(${escapeHtml(s)})</small></li>`).join('')
    : '<li>everything your role in the store allows</li>';
  const picker =
    stores.length === 1
      ? `<p>Store: <strong>${escapeHtml(stores[0].name)}</strong> (you are ${stores[0].role})</p><input type="hidden" name="store_id" value="${stores[0].id}">`
      : `<label for="store_id">Store</label><select id="store_id" name="store_id">${stores.map((s) => `<option value="${s.id}">${escapeHtml(s.name)} (${s.role})</option>`).join('')}</select>`;
  const body = page(
    'Allow access?',
    `<p><strong>${escapeHtml(req.client.name)}</strong>${who(req.client)} wants to act for you (${escapeHtml(email)}) and:</p><ul>${scopes}</ul>
<p>It is sent back to <code>${escapeHtml(new URL(req.redirectUri).origin)}</code>. Scopes your role does not hold are not granted.</p>
<form method="post" action="/auth/authorize">${csrfField(csrf.token)}${hidden}${picker}
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
  return html(200, body, csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {});
}

/** A metadata document's client: its name is whatever that host publishes, so the host is what users should judge. */
const who = (client: Client) => (isMetadataUrl(client.client_id) ? ` (from <code>${escapeHtml(new URL(client.client_id).host)}</code>)` : '');

const Form = Type.Record(Type.String(), Type.String());

export const authorizeActions = {
  authorize: action({
    kind: 'read',
    description: 'OAuth 2.1 authorization endpoint (SPEC 4.9): signs the user in if needed and asks for consent (HTML).',
    input: Form,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'GET', path: '/auth/authorize', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      const params = pick(input);
      const req = await parse(ctx, params);
      if (req.kind === 'fatal') return errorPage(req.message);
      if (req.kind === 'redirect') return redirect(req.location);
      const user = await currentUser(ctx);
      if (!user)
        return redirect(`/auth/login?return_to=${encodeURIComponent(`/auth/authorize?${new URLSearchParams(params as Record<string, string>)}`)}`);
      const stores = await storesOf(ctx, user.userId);
      if (!stores.length) return errorPage(`${user.email} is not a member of any store. Ask a store owner for an invitation.`, 403);
      return consentPage(ctx, params, req, stores, user.email);
    },
  }),
  authorize_decision: action({
    kind: 'write',
    description: "The consent form's answer: allow (redirects with a code) or deny (redirects with error=access_denied).",
    input: Form,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'POST', path: '/auth/authorize', auth: 'public', scope: 'global', body: 'form', response: 'raw', contentType: 'text/html' },
    handler: async (ctx, input) => {
      if (!csrfValid(ctx, input.csrf_token)) return csrfFailure(ctx);
      const params = pick(input);
      const req = await parse(ctx, params);
      if (req.kind === 'fatal') return errorPage(req.message);
      if (req.kind === 'redirect') return redirect(req.location);
      const user = await currentUser(ctx);
      if (!user) return errorPage('Your session has ended. Start again from the application.', 401);
      if (input.decision !== 'allow') return redirect(req.error('access_denied', 'The user denied the request.'));
      const storeId = String(input.store_id ?? '');
      const [m] = /^[0-9a-f-]{36}$/i.test(storeId)
        ? await ctx.db.query('SELECT role FROM store_memberships WHERE user_id = $1 AND store_id = $2', [user.userId, storeId])
        : [];
      if (!m || !isRole(m.role)) return redirect(req.error('access_denied', 'The user is not a member of that store.'));
      const scopes = grantable(ctx.registry, m.role, req.scopes);
      if (!scopes.length) return redirect(req.error('invalid_scope', "The user's role in this store allows none of the requested scopes."));
      const code = await createGrantWithCode(
        ctx,
        { client_id: req.client.client_id, user_id: user.userId, store_id: storeId, scopes, resource: req.resource },
        { redirectUri: req.redirectUri, challenge: req.challenge },
      );
      ctx.log.info('authorization granted', { user_id: user.userId, client_id: req.client.client_id, store_id: storeId });
      const url = new URL(req.redirectUri);
      url.searchParams.set('code', code);
      if (req.state !== undefined) url.searchParams.set('state', req.state);
      url.searchParams.set('iss', ctx.origin);
      return redirect(url.toString());
    },
  }),
};
