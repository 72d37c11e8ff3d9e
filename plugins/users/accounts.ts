import { errors, fail, iso, type Clock, type Ctx, type Db } from '../../core/sdk';
import { isRole, managesMembers, type Role } from './roles';

export const MIN_PASSWORD = 10;

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' });

// Checked against when the email is unknown, so a miss costs the same time as a wrong password.
let decoy: Promise<string> | undefined;

/** The user whose email and password these are, or undefined (same work either way). */
export async function checkPassword(db: Db, email: string, password: string): Promise<{ id: string } | undefined> {
  const [row] = await db.query('SELECT id, password_hash FROM users WHERE lower(email) = lower($1)', [email]);
  decoy ??= hashPassword(randomPassword());
  const ok = await Bun.password.verify(password, row?.password_hash ?? (await decoy)).catch(() => false);
  return row && ok ? { id: row.id } : undefined;
}

const randomPassword = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url');

export function checkNewPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD || password.length > 512)
    throw errors.validation(`password must be ${MIN_PASSWORD} to 512 characters long.`, 'password');
  return password;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export function checkEmail(email: unknown): string {
  if (typeof email !== 'string' || !EMAIL.test(email.trim()) || email.length > 320)
    throw errors.validation('email must be a valid email address.', 'email');
  return email.trim();
}

/** The user with this email, creating it (with this password) when there is none. */
export async function findOrCreateUser(
  db: Db,
  clock: Clock,
  input: { email: string; name?: string; password?: string },
): Promise<{ id: string; created: boolean }> {
  const [have] = await db.query('SELECT id FROM users WHERE lower(email) = lower($1)', [input.email]);
  if (have) return { id: have.id, created: false };
  if (input.password === undefined) throw errors.validation('password is required to create a new user.', 'password');
  const hash = await hashPassword(checkNewPassword(input.password));
  const [row] = await db.query(
    `INSERT INTO users (id, email, name, password_hash, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
    [input.email, input.name ?? '', hash, clock.now()],
  );
  if (row) return { id: row.id, created: true };
  return findOrCreateUser(db, clock, { email: input.email }); // created meanwhile by another request
}

export const memberView = (r: any) => ({
  object: 'member' as const,
  user_id: r.user_id,
  email: r.email,
  name: r.name,
  role: r.role,
  created_at: iso(r.created_at),
});

const MEMBER = `SELECT m.user_id, u.email, u.name, m.role, m.created_at FROM store_memberships m JOIN users u ON u.id = m.user_id`;

export async function getMember(db: Db, storeId: string, userId: string) {
  const [row] = await db.query(`${MEMBER} WHERE m.store_id = $1 AND m.user_id = $2`, [storeId, userId]);
  if (!row) throw errors.notFound(`member: '${userId}'`, 'user_id');
  return memberView(row);
}

export async function listMembers(db: Db, storeId: string) {
  return (await db.query(`${MEMBER} WHERE m.store_id = $1 ORDER BY m.created_at, m.user_id`, [storeId])).map(memberView);
}

export async function addMember(db: Db, clock: Clock, storeId: string, userId: string, role: Role) {
  const rows = await db.query(
    'INSERT INTO store_memberships (user_id, store_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING user_id',
    [userId, storeId, role, clock.now()],
  );
  if (!rows.length) throw fail('already_member', 'This user is already a member of the store.', 'email');
  return getMember(db, storeId, userId);
}

/** The acting user's role in the store (undefined for API keys and the operator). */
export async function roleOf(db: Db, storeId: string, userId: string): Promise<Role | undefined> {
  const [row] = await db.query('SELECT role FROM store_memberships WHERE store_id = $1 AND user_id = $2', [storeId, userId]);
  return row?.role;
}

/** Who is acting on members: a signed-in owner or admin of this store. */
export async function actingManager(ctx: Ctx): Promise<{ userId: string; role: Role }> {
  const p = ctx.principal;
  if (p.kind !== 'user') throw fail('role_required', 'Only a signed-in owner or admin of the store manages its members.');
  const role = await roleOf(ctx.db, ctx.store.id, p.userId);
  if (!role || !managesMembers(role)) throw fail('role_required', 'Only owners and admins manage members and invitations.');
  return { userId: p.userId, role };
}

/**
 * Changes a member's role, or removes the member (role null). Owners are managed only by owners,
 * and a store keeps at least one owner: the store row is locked so two concurrent demotions see
 * each other and the second is refused.
 */
export async function changeMember(ctx: Ctx, targetId: string, role: Role | null) {
  if (role !== null && !isRole(role)) throw errors.validation('role must be one of owner, admin, approver, staff, viewer.', 'role');
  return ctx.db.transaction(async (tx) => {
    await tx.query('SELECT id FROM stores WHERE id = $1 FOR UPDATE', [ctx.store.id]);
    // The actor's role is read under the lock too: a concurrent change may just have demoted them.
    const actor = await actingManager({ ...ctx, db: tx });
    const current = await roleOf(tx, ctx.store.id, targetId);
    if (!current) throw errors.notFound(`member: '${targetId}'`, 'user_id');
    if ((current === 'owner' || role === 'owner') && actor.role !== 'owner') throw fail('role_required', 'Only owners manage owners.', 'role');
    if (current === 'owner' && role !== 'owner') {
      const [{ n }] = await tx.query('SELECT count(*)::int AS n FROM store_memberships WHERE store_id = $1 AND role = $2', [ctx.store.id, 'owner']);
      if (n <= 1) throw fail('last_owner', 'A store keeps at least one owner: make someone else owner first.', 'user_id');
    }
    if (role === null) {
      const view = await getMember(tx, ctx.store.id, targetId);
      await tx.query('DELETE FROM store_memberships WHERE store_id = $1 AND user_id = $2', [ctx.store.id, targetId]);
      return { ...view, deleted: true };
    }
    await tx.query('UPDATE store_memberships SET role = $3 WHERE store_id = $1 AND user_id = $2', [ctx.store.id, targetId, role]);
    return getMember(tx, ctx.store.id, targetId);
  });
}
