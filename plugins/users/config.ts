import { Type, type Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';

/** The users plugin's settings (`SVC_USERS_<FIELD>`): lifetimes of what it issues. */
export const UsersConfig = Type.Object({
  access_token_ttl_seconds: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
  refresh_token_ttl_seconds: Type.Integer({ minimum: 3600, default: 30 * 86_400 }),
  code_ttl_seconds: Type.Integer({ minimum: 10, maximum: 600, default: 60 }),
  session_ttl_seconds: Type.Integer({ minimum: 300, default: 12 * 3600 }),
});

/** A ctx whose settings are the users plugin's. */
export type UsersCtx = Ctx<Static<typeof UsersConfig>>;

/**
 * The same call with the users plugin's settings, for users code that runs inside another
 * plugin's call (svc_login's device login, svc_stores' store switch reach it through public.ts).
 */
export const asUsers = (ctx: Ctx): UsersCtx => ({ ...ctx, config: ctx.registry.configOf('users') as UsersCtx['config'] });
