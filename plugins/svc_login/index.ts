import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, noExample } from '../../core/sdk';

const SESSION_ONLY = noExample('needs a device login approved by a signed-in user (plugins/svc_login/svc_login.test.ts)');
import { deviceLogin, logout, refreshLogin } from '../users/public';

/**
 * Sign-in for agents (SPEC 4.10 `svc_login`): the device authorization grant (RFC 8628). `login`
 * starts it and answers the URL and code for the human; called again with the device_code it
 * polls once (status authorization_pending, slow_down, access_denied, expired_token, or approved
 * with the tokens). `refresh_token` rotates a session's tokens; `logout` revokes a session.
 */
const Outcome = Type.Object(
  {
    status: Type.String({
      description:
        'pending (started), approved (tokens below), authorization_pending, slow_down, access_denied, expired_token, invalid_grant, logged_out, unknown_token.',
    }),
    message: Type.Optional(Type.String()),
    device_code: Type.Optional(Type.String({ description: 'Pass it back to login to poll; keep it to yourself.' })),
    user_code: Type.Optional(Type.String({ description: 'For the human to enter at verification_uri.' })),
    verification_uri: Type.Optional(Type.String()),
    verification_uri_complete: Type.Optional(Type.String()),
    expires_in: Type.Optional(Type.Integer()),
    interval: Type.Optional(Type.Integer({ description: 'Seconds to wait between polls.' })),
    access_token: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    store_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export default definePlugin({
  name: 'svc_login',
  category: 'platform',
  description: 'Sign a human in for this agent with the device flow (a URL and a code to enter), refresh the tokens, log out.',
  resource: 'login',
  catalog: true,
  requires: ['users'],
  // SPEC 5.4: svc_login is usable with platform.
  scopes: { read: ['platform'], write: ['platform'] },
  actions: {
    login: action({
      kind: 'write',
      description:
        'Without device_code: start a device login; answers verification_uri and user_code for the human, and a device_code. With device_code: poll once (wait `interval` seconds between polls); answers status authorization_pending, slow_down, access_denied, expired_token, or approved with access_token and refresh_token.',
      input: Input({
        scope: Type.Optional(Type.String({ maxLength: 2000, description: 'Space-separated scopes to ask for (default: all the role allows).' })),
        device_code: Type.Optional(Type.String({ maxLength: 200 })),
      }),
      output: Outcome,
      example: noExample("needs SVC_PUBLIC_URL or a user's token to name the verification URL (plugins/svc_login/svc_login.test.ts)"),
      handler: (ctx, input) => deviceLogin(ctx, input),
    }),
    refresh_token: action({
      kind: 'write',
      description:
        'Exchange a refresh token from login for a new access and refresh token (the old refresh token is spent; reusing it revokes the session).',
      input: Input({ refresh_token: Type.String({ maxLength: 200 }) }),
      output: Outcome,
      example: SESSION_ONLY,
      handler: (ctx, input) => refreshLogin(ctx, input.refresh_token),
    }),
    logout: action({
      kind: 'write',
      description: 'Revoke a session: the one of refresh_token, or without it the session of the access token making this call.',
      input: Input({ refresh_token: Type.Optional(Type.String({ maxLength: 200 })) }),
      output: Outcome,
      errors: ['no_oauth_session'],
      example: SESSION_ONLY,
      handler: (ctx, input) => logout(ctx, input.refresh_token),
    }),
  },
});
