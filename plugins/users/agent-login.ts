import { errors, fail, type Ctx } from '../../core/sdk';
import { asUsers } from './config';
import { CLI_CLIENT, ensureCliClient, pollDevice, startDevice } from './device';
import { GrantError, issueTokens, redeemRefresh, revokeByRefresh, revokeGrant } from './grants';

/**
 * Login for agents (the svc_login tool): the device authorization grant (RFC 8628) run through
 * tool calls, on svc's built-in public client `svc-cli`. OAuth outcomes that are not failures of
 * the call (authorization_pending, slow_down, a replayed refresh token) are answered as `status`,
 * not thrown: a thrown error would roll back the call's transaction, and with it the revocation a
 * replay must cause.
 */

/** This server's public origin for links and token issuers: SVC_PUBLIC_URL, else the caller's own token issuer. */
function publicBase(ctx: Ctx): string {
  const configured = ctx.registry.site.publicUrl;
  if (configured) return configured;
  if (ctx.principal.kind === 'user' && ctx.principal.grant) return ctx.principal.grant.issuer;
  throw errors.notConfigured('SVC_PUBLIC_URL', "svc_login needs this server's public URL (or call it with a user's token)");
}

const outcome = (e: unknown) => {
  if (e instanceof GrantError) return { status: e.error, message: e.message };
  throw e;
};

export async function deviceLogin(ctx: Ctx, input: { scope?: string; device_code?: string }) {
  const base = publicBase(ctx);
  const users = asUsers(ctx);
  if (input.device_code === undefined) {
    await ensureCliClient(ctx.db, ctx.clock);
    try {
      const started = await startDevice(users, CLI_CLIENT, input.scope, `${base}/agent/mcp`, base);
      return {
        status: 'pending',
        ...started,
        message: `Ask the human to open ${started.verification_uri} and enter ${started.user_code} (or open ${started.verification_uri_complete}), then call login again with this device_code every ${started.interval} seconds.`,
      };
    } catch (e) {
      return outcome(e);
    }
  }
  try {
    const grant = await pollDevice(users, CLI_CLIENT, input.device_code);
    return { status: 'approved', ...(await issueTokens(users, grant, base)), store_id: grant.store_id };
  } catch (e) {
    return outcome(e);
  }
}

export async function refreshLogin(ctx: Ctx, refreshToken: string) {
  const users = asUsers(ctx);
  try {
    const grant = await redeemRefresh(users, CLI_CLIENT, refreshToken);
    return { status: 'approved', ...(await issueTokens(users, grant, publicBase(ctx))), store_id: grant.store_id };
  } catch (e) {
    return outcome(e);
  }
}

/** Revokes the session of a refresh token, or else the caller's own (a user's access token). */
export async function logout(ctx: Ctx, refreshToken: string | undefined) {
  if (refreshToken !== undefined) {
    const known = await revokeByRefresh(asUsers(ctx), CLI_CLIENT, refreshToken);
    return { status: known ? 'logged_out' : 'unknown_token' };
  }
  const p = ctx.principal;
  if (p.kind === 'user' && p.grant) {
    await revokeGrant(ctx.db, ctx, p.grant.id);
    return { status: 'logged_out' };
  }
  throw fail(
    'no_oauth_session',
    "Nothing to log out: pass the refresh_token of the session, or call this with a user's access token (an API key is revoked with api_keys.revoke_key).",
  );
}
