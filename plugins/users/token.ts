import { Type } from '@sinclair/typebox';
import { action, type Ctx } from '../../core/sdk';
import { ClientMetadataError, registerClient, secretMatches, type Client } from './clients';
import { GrantError, issueTokens, redeemCode, redeemRefresh, revokeByRefresh, revokeGrant } from './grants';
import { verifyToken } from './signing';
import { findClient } from './client-metadata';
import { DEVICE_GRANT, pollDevice } from './device';
import { jsonResponse } from './web';

/**
 * The token endpoint (SPEC 4.9), revocation (RFC 7009) and dynamic registration (RFC 7591). These
 * answer OAuth's own error shape, `{error, error_description}` (RFC 6749 5.2), not SPEC 7's
 * envelope: OAuth client libraries read that shape. Bodies are form-encoded or JSON.
 */

export const RawBody = Type.Object({ body: Type.Optional(Type.Any()), content_type: Type.Optional(Type.String()) }, { additionalProperties: true });
export const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  jsonResponse(status, { error, error_description: description }, headers);

export function parseBody(input: { body?: Uint8Array; content_type?: string }): Record<string, unknown> | undefined {
  const text = new TextDecoder().decode(input.body ?? new Uint8Array());
  if ((input.content_type ?? '').includes('application/json')) {
    try {
      const v = JSON.parse(text);
      return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/**
 * The client id and secret of a Basic header (RFC 6749 2.3.1): base64 of `id:secret`, each
 * form-encoded first (so `+` is a space), split at the first colon. Undefined when malformed.
 */
export function basicCredentials(encoded: string): { id: string; secret: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded.trim())) return undefined;
  const text = Buffer.from(encoded.trim(), 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  const formDecode = (s: string) => decodeURIComponent(s.replaceAll('+', ' '));
  try {
    return { id: formDecode(text.slice(0, colon)), secret: formDecode(text.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * Who the client is: HTTP Basic (client_secret_basic), client_secret in the body
 * (client_secret_post), or for a public client its client_id alone. A confidential client must
 * prove its secret.
 */
export async function authenticateClient(ctx: Ctx, body: Record<string, unknown>): Promise<Client | Response> {
  let id = body.client_id;
  let secret = body.client_secret;
  const basic = /^Basic\s+(.+)$/i.exec(ctx.http?.request.headers.get('authorization') ?? '')?.[1];
  const challenge: Record<string, string> = basic ? { 'WWW-Authenticate': 'Basic realm="svc"' } : {};
  if (basic) {
    const credentials = basicCredentials(basic);
    if (!credentials) return oauthError(401, 'invalid_client', 'Malformed Basic credentials.', challenge);
    ({ id, secret } = credentials);
  }
  let client: Client | undefined;
  try {
    // A metadata-document client is only as good as its document: a refresh hours later checks it
    // again, and a client whose document is gone or changed for the worse gets no more tokens.
    client = await findClient(ctx, id);
  } catch (e) {
    if (!(e instanceof ClientMetadataError)) throw e;
    return oauthError(401, 'invalid_client', e.message, challenge);
  }
  if (!client) return oauthError(401, 'invalid_client', 'Unknown client.', challenge);
  if (client.confidential && !secretMatches(client, secret)) return oauthError(401, 'invalid_client', 'Client authentication failed.', challenge);
  return client;
}

export const tokenActions = {
  token: action({
    kind: 'write',
    description: 'OAuth 2.1 token endpoint (SPEC 4.9): authorization_code (with PKCE), refresh_token and device_code (RFC 8628) grants.',
    input: RawBody,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'POST', path: '/v1/auth/token', auth: 'public', scope: 'global', body: 'raw', response: 'raw', contentType: 'application/json' },
    handler: async (ctx, input) => {
      const body = parseBody(input);
      if (!body) return oauthError(400, 'invalid_request', 'The body must be form-encoded (or a JSON object).');
      const client = await authenticateClient(ctx, body);
      if (client instanceof Response) return client;
      try {
        const issuer = ctx.origin;
        if (body.grant_type === 'authorization_code')
          return jsonResponse(200, await issueTokens(ctx, await redeemCode(ctx, client.client_id, body), issuer));
        if (body.grant_type === 'refresh_token')
          return jsonResponse(200, await issueTokens(ctx, await redeemRefresh(ctx, client.client_id, body.refresh_token), issuer, body.scope));
        if (body.grant_type === DEVICE_GRANT)
          return jsonResponse(200, await issueTokens(ctx, await pollDevice(ctx, client.client_id, body.device_code), issuer));
        return oauthError(400, 'unsupported_grant_type', `grant_type must be authorization_code, refresh_token or ${DEVICE_GRANT}.`);
      } catch (e) {
        if (e instanceof GrantError) return oauthError(400, e.error, e.message);
        throw e;
      }
    },
  }),
  revoke: action({
    kind: 'write',
    description:
      'OAuth token revocation (RFC 7009): a refresh or access token, with its whole grant. Answers 200 whether or not the token was known.',
    input: RawBody,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'POST', path: '/auth/revoke', auth: 'public', scope: 'global', body: 'raw', response: 'raw', contentType: 'application/json' },
    handler: async (ctx, input) => {
      const body = parseBody(input);
      if (!body || typeof body.token !== 'string') return oauthError(400, 'invalid_request', 'token is required.');
      const client = await authenticateClient(ctx, body);
      if (client instanceof Response) return client;
      if (!(await revokeByRefresh(ctx, client.client_id, body.token))) {
        const claims = await verifyToken(ctx.db, ctx.clock, body.token, ctx.origin).catch(() => undefined);
        if (claims && claims.client_id === client.client_id && typeof claims.gid === 'string') await revokeGrant(ctx.db, ctx, claims.gid);
      }
      return new Response(null, { status: 200, headers: { 'Cache-Control': 'no-store' } });
    },
  }),
  register: action({
    kind: 'write',
    description:
      'OAuth dynamic client registration (RFC 7591), as MCP clients use it. Public clients (token_endpoint_auth_method none, the default) must use PKCE.',
    input: RawBody,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: {
      method: 'POST',
      path: '/auth/register',
      auth: 'public',
      scope: 'global',
      body: 'raw',
      response: 'raw',
      status: 201,
      contentType: 'application/json',
    },
    handler: async (ctx, input) => {
      const meta = parseBody({ ...input, content_type: 'application/json' });
      if (!meta) return oauthError(400, 'invalid_client_metadata', 'The body must be a JSON object of client metadata.');
      try {
        const { client, secret, issuedAt, method } = await registerClient(ctx.db, ctx.clock, meta, 'dynamic');
        ctx.log.info('oauth client registered', { client_id: client.client_id });
        return jsonResponse(201, {
          client_id: client.client_id,
          client_id_issued_at: issuedAt,
          ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
          client_name: client.name,
          redirect_uris: client.redirect_uris,
          token_endpoint_auth_method: method,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        });
      } catch (e) {
        if (e instanceof ClientMetadataError) return oauthError(400, e.error, e.message);
        throw e;
      }
    },
  }),
};
