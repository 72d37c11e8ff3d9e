import { acceptedScopes, scopesFor } from '../plugins/contract';
import type { Registry } from '../plugins/registry';
import type { RestRoute } from './rest';

/** The OpenAPI document's security: who may call each operation, and the schemes they use. */

type Json = Record<string, any>;

/** A store route takes the API key either way (SPEC 4, 5.2). */
export const API_KEY_SECURITY = [{ ApiKeyAuth: [] }, { ApiKeyBearer: [] }];

/**
 * Who may call, as OpenAPI security requirements (alternatives: any one is enough) and one
 * sentence for the description. A store credential needs one of the action's scopes: an API key's
 * scopes are listed in `x-required-scopes`; a user's token (OAuth) carries them as OAuth scopes,
 * one alternative per scope since any one of them will do.
 */
export function access(route: RestRoute, oauth: boolean): { security: Json[]; sentence: string; scopes?: string[] } {
  const admin = route.auth.includes('admin');
  // Open to the admin token and to a bearer the route checks itself (telemetry's scrape token).
  if (route.auth.includes('public') && admin)
    return {
      security: [{ AdminToken: [] }, {}],
      sentence: 'Takes the admin token (SVC_ADMIN_TOKEN), or the bearer token its description names, as `Authorization: Bearer <token>`.',
    };
  if (route.auth.includes('public')) return { security: [], sentence: 'Public: no credential needed.' };
  if (admin && route.auth.length === 1)
    return {
      security: [{ AdminToken: [] }],
      sentence: 'Requires the admin token (SVC_ADMIN_TOKEN) as `Authorization: Bearer <token>`; API keys are not accepted.',
    };
  const scopes = acceptedScopes(route.plugin, route.action.kind);
  // A decision only some roles make holds a user's token to its own scopes (tool_executions' approve).
  const forUsers = scopesFor(route.plugin, route.action, 'user');
  const keys = route.auth.includes('api_key');
  const users = route.auth.includes('user') && oauth;
  const list = (ss: string[]) => ss.map((s) => `\`${s}\``).join(', ');
  const credentials = [
    keys && 'an API key (`x-api-key`, or `Authorization: Bearer <key>`)',
    users && "a signed-in user's access token (OAuth 2.0, `Authorization: Bearer <token>`)",
  ].filter(Boolean);
  const security = [
    ...(keys ? API_KEY_SECURITY : []),
    ...(users ? [...forUsers.map((s) => ({ UserOAuth: [s] })), { UserToken: [] }] : []),
    ...(admin ? [{ AdminToken: [] }] : []),
  ];
  const differs = keys && users && forUsers.join() !== scopes.join();
  const sentence =
    (differs
      ? `Requires an API key (\`x-api-key\`, or \`Authorization: Bearer <key>\`) holding one of ${list(scopes)}, or a signed-in user's access token (OAuth 2.0) holding one of ${list(forUsers)}.`
      : `Requires ${credentials.join(' or ')} holding one of these scopes: ${list(keys ? scopes : forUsers)}.`) +
    (keys ? '' : ' API keys are refused (403): only a person may do this.') +
    (admin ? ' The admin token (SVC_ADMIN_TOKEN) is accepted too.' : '');
  return { security, scopes, sentence };
}

/** The scopes a user's token may carry: every scope a plugin accepts, the operator's `admin` aside. */
function userScopes(registry: Registry): Json {
  const all = new Set(registry.scopes);
  for (const p of registry.plugins) for (const s of [...p.scopes.read, ...p.scopes.write]) if (s !== 'admin') all.add(s);
  return Object.fromEntries([...all].sort().map((s) => [s, `Accepted by the operations that list \`${s}\`.`]));
}

/**
 * A user's access token, where a plugin issues them: the OAuth 2.0 flow that gets one
 * (authorization code; PKCE with S256 is required) and the token itself as a bearer JWT.
 */
export function userSchemes(registry: Registry): Json {
  const oauth = registry.plugins.find((p) => p.oauth)?.oauth;
  if (!oauth) return {};
  return {
    UserOAuth: {
      type: 'oauth2',
      description:
        "A signed-in user's access token, obtained with the authorization code flow. PKCE (`code_challenge_method=S256`) is " +
        'required; clients register at /auth/register or use the URL of their metadata document as client_id. ' +
        'Discovery: /.well-known/oauth-authorization-server.',
      flows: {
        authorizationCode: {
          authorizationUrl: oauth.authorizationPath,
          tokenUrl: oauth.tokenPath,
          refreshUrl: oauth.tokenPath,
          scopes: userScopes(registry),
        },
      },
    },
    UserToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: "The same user's access token (a JWT signed by this server, keys at /.well-known/jwks.json) as `Authorization: Bearer <token>`.",
    },
  };
}
