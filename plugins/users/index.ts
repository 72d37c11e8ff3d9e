import { Type } from '@sinclair/typebox';
import { definePlugin, job, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_users.sql' with { type: 'text' };
import migration002 from './migrations/002_device.sql' with { type: 'text' };
import migration003 from './migrations/003_client_metadata.sql' with { type: 'text' };
import { userAuthenticator } from './authenticator';
import { UsersConfig } from './config';
import { authorizeActions } from './authorize';
import { consoleActions, consoleErrors } from './console-session';
import { deviceActions } from './device-web';
import { inviteActions } from './invite';
import { loginActions } from './login';
import { memberActions, memberEvents, roleErrors } from './members';
import { metadataActions } from './metadata';
import { tokenActions } from './token';

// The daily prune's handler: loaded at its first run, not at start (plugins/README.md). The action
// lists above declare their routes beside their handlers (and the authenticator runs on every
// request), so they stay as they are.
const { pruneExpired } = onFirstCall(() => import('./prune'));

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
  config: UsersConfig,
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
  events: memberEvents,
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
