import { Type } from '@sinclair/typebox';
import { action, type Ctx } from '../../core/sdk';
import { scopeUniverse } from './roles';
import { jwks } from './signing';
import { jsonResponse } from './web';

/**
 * Discovery: RFC 8414 authorization server metadata (at the root and under {mcp_url}/agent, SPEC
 * 4.10), RFC 9728 protected resource metadata (the MCP endpoint's 401 points there), and the JWKS.
 * Public JSON, readable by browser-based clients (CORS *).
 */
const CORS = { 'Access-Control-Allow-Origin': '*' };

export function serverMetadata(ctx: Ctx) {
  const base = ctx.origin;
  return {
    issuer: base,
    authorization_endpoint: `${base}/auth/authorize`,
    token_endpoint: `${base}/v1/auth/token`,
    registration_endpoint: `${base}/auth/register`,
    revocation_endpoint: `${base}/auth/revoke`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    device_authorization_endpoint: `${base}/auth/device_authorization`,
    grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: scopeUniverse(ctx.registry),
    authorization_response_iss_parameter_supported: true,
    // A client_id may be the https URL of its metadata document (client-metadata.ts).
    client_id_metadata_document_supported: true,
  };
}

function resourceMetadata(ctx: Ctx, path: string) {
  const base = ctx.origin;
  return {
    resource: base + path,
    authorization_servers: [base],
    scopes_supported: scopeUniverse(ctx.registry),
    bearer_methods_supported: ['header'],
    resource_name: path ? 'svc MCP server' : 'svc REST API',
  };
}

const None = Type.Object({}, { additionalProperties: true });
const get = (path: string, description: string, body: (ctx: Ctx) => unknown | Promise<unknown>) =>
  action({
    kind: 'read',
    description,
    input: None,
    output: Type.Object({}, { additionalProperties: true, description: 'An HTML page, a redirect, or (OAuth endpoints) their JSON.' }),
    rest: { method: 'GET', path, auth: 'public', scope: 'global', response: 'raw', contentType: 'application/json' },
    handler: async (ctx) => jsonResponse(200, await body(ctx), { ...CORS, 'Cache-Control': 'public, max-age=300' }),
  });

export const metadataActions = {
  server_metadata: get('/.well-known/oauth-authorization-server', 'OAuth authorization server metadata (RFC 8414).', serverMetadata),
  mcp_server_metadata: get(
    '/agent/.well-known/oauth-authorization-server',
    'OAuth authorization server metadata under the MCP base (SPEC 4.10).',
    serverMetadata,
  ),
  resource_metadata: get('/.well-known/oauth-protected-resource', 'Protected resource metadata of the REST API (RFC 9728).', (ctx) =>
    resourceMetadata(ctx, ''),
  ),
  mcp_resource_metadata: get(
    '/.well-known/oauth-protected-resource/agent/mcp',
    'Protected resource metadata of the MCP endpoint (RFC 9728).',
    (ctx) => resourceMetadata(ctx, '/agent/mcp'),
  ),
  jwks: get('/.well-known/jwks.json', "The public keys that sign users' access tokens (JWKS).", (ctx) => jwks(ctx.db, ctx.clock)),
};
