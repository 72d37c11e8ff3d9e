import { Type } from '@sinclair/typebox';
import { definePlugin, job } from '../../core/sdk';
import migration001 from './migrations/001_users.sql' with { type: 'text' };
import migration002 from './migrations/002_device.sql' with { type: 'text' };
import migration003 from './migrations/003_client_metadata.sql' with { type: 'text' };
import { userAuthenticator } from './authenticator';
import { authorizeActions } from './authorize';
import { consoleActions, consoleErrors } from './console-session';
import { deviceActions } from './device-web';
import { inviteActions } from './invite';
import { loginActions } from './login';
import { memberActions, roleErrors } from './members';
import { metadataActions } from './metadata';
import { tokenActions } from './token';
import { pruneExpired } from './prune';

/**
 * People and OAuth 2.1 (issue 11): users with a role per store, browser sign-in, an authorization
 * server MCP clients find by themselves, and the `user` authenticator that makes a user's access
 * token work on every surface (REST, MCP, agent chat). REST only: no action is a tool.
 */
export default definePlugin({
  name: 'users',
  category: 'platform',
  description: 'Users, their roles in stores, browser sign-in and the OAuth 2.1 authorization server.',
  resource: 'user',
  tool: false,
  scopes: { read: ['platform', 'platform:read', 'users:read'], write: ['platform', 'platform:write', 'users:write'] },
  config: Type.Object({
    public_url: Type.Optional(
      Type.String({
        env: 'SVC_PUBLIC_URL',
        description: "This server's public origin (https://svc.example.com): the OAuth issuer and token audience. Default: the Host of each request.",
      }),
    ),
    trust_proxy: Type.Boolean({
      default: false,
      env: 'SVC_TRUST_PROXY',
      description: 'Take the client address from X-Forwarded-For (sign-in throttling); set behind a proxy.',
    }),
    access_token_ttl_seconds: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
    refresh_token_ttl_seconds: Type.Integer({ minimum: 3600, default: 30 * 86_400 }),
    code_ttl_seconds: Type.Integer({ minimum: 10, maximum: 600, default: 60 }),
    session_ttl_seconds: Type.Integer({ minimum: 300, default: 12 * 3600 }),
  }),
  errors: { ...roleErrors, ...consoleErrors },
  tables: [
    'users',
    'store_memberships',
    'invitations',
    'user_sessions',
    'login_throttle',
    'token_signing_keys',
    'oauth_clients',
    'oauth_grants',
    'oauth_codes',
    'oauth_refresh_tokens',
    'oauth_device_codes',
  ],
  migrations: [
    { id: 'users/001_users', sql: migration001 },
    { id: 'users/002_device', sql: migration002 },
    { id: 'users/003_client_metadata', sql: migration003 },
  ],
  authenticators: (deps) => [userAuthenticator(deps)],
  // The endpoints serverMetadata (metadata.ts) announces, for the API description's OAuth flow.
  oauth: { authorizationPath: '/auth/authorize', tokenPath: '/v1/auth/token' },
  jobs: {
    prune: job({
      description: 'Deletes expired sign-in and OAuth rows, and clients nobody used.',
      input: Type.Object({}),
      cron: '17 3 * * *',
      handler: async (ctx) => {
        const deleted = await pruneExpired(ctx.db, ctx.clock.now());
        ctx.log.info('expired sign-in and OAuth rows deleted', deleted);
        return deleted;
      },
    }),
  },
  actions: {
    ...memberActions,
    ...loginActions,
    ...inviteActions,
    ...authorizeActions,
    ...tokenActions,
    ...metadataActions,
    ...deviceActions,
    ...consoleActions,
  },
});
