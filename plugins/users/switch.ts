import { errors, fail, type Ctx } from '../../core/sdk';
import { roleOf } from './accounts';
import { issueTokens, revokeGrant, type Grant } from './grants';
import { grantable } from './roles';
import { asUsers } from './config';

/** The stores a user belongs to, with the role in each. */
export async function storesOfUser(ctx: Pick<Ctx, 'db'>, userId: string): Promise<{ id: string; name: string; plan: string; role: string }[]> {
  return ctx.db.query(
    'SELECT s.id, s.name, s.plan, m.role FROM store_memberships m JOIN stores s ON s.id = m.store_id WHERE m.user_id = $1 ORDER BY s.name, s.id',
    [userId],
  );
}

async function liveGrant(ctx: Ctx, grantId: string): Promise<Grant> {
  const [g] = await ctx.db.query('SELECT id, client_id, user_id, store_id, scopes, resource, revoked_at FROM oauth_grants WHERE id = $1 FOR UPDATE', [
    grantId,
  ]);
  if (!g || g.revoked_at) throw errors.auth("This access token's grant was revoked.");
  return g as Grant;
}

/**
 * Moves an OAuth session (its grant) to another store of the same user: a new grant for the same
 * client in that store, holding the scopes the user consented to that the role there allows (never
 * more than consented), a new token pair for it, and the old grant revoked (its tokens stop).
 */
export async function switchGrant(ctx: Ctx, grant: { id: string; issuer: string }, userId: string, storeId: string) {
  const old = await liveGrant(ctx, grant.id);
  const role = /^[0-9a-f-]{36}$/i.test(storeId) ? await roleOf(ctx.db, storeId, userId) : undefined;
  if (!role) throw fail('not_a_member', `You are not a member of store '${storeId}'. list_stores names yours.`, 'store_id');
  const scopes = grantable(ctx.registry, role, old.scopes);
  if (!scopes.length)
    throw fail('not_a_member', `Your role in that store (${role}) allows none of this session's scopes (${old.scopes.join(' ')}).`, 'store_id');
  const now = ctx.clock.now();
  const [row] = await ctx.db.query(
    'INSERT INTO oauth_grants (id, client_id, user_id, store_id, scopes, resource, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6) RETURNING id',
    [old.client_id, userId, storeId, scopes, old.resource, now],
  );
  const tokens = await issueTokens(asUsers(ctx), { ...old, id: row.id, store_id: storeId, scopes }, grant.issuer);
  await revokeGrant(ctx.db, ctx, old.id);
  return { role, tokens };
}

/** Ends an OAuth session: its grant, every token of it. */
export async function endGrant(ctx: Ctx, grantId: string) {
  await revokeGrant(ctx.db, ctx, grantId);
}
