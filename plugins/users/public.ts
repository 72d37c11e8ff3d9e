/** What other plugins (svc_stores, svc_login, email, inbox) may use of the users plugin. */
export { endGrant, storesOfUser, switchGrant } from './switch';
export { deviceLogin, logout, refreshLogin } from './agent-login';

import type { Db } from '../../core/sdk';

/** Whether the user is a member of the store (any role): the shared inbox assigns threads to members. */
export async function isMember(db: Db, storeId: string, userId: string): Promise<boolean> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(userId)) return false;
  const rows = await db.query('SELECT 1 FROM store_memberships WHERE store_id = $1 AND user_id = $2', [storeId, userId]);
  return rows.length > 0;
}

/** The addresses of the store's members holding one of `roles`: approvers are mailed when a call is held. */
export async function memberEmails(db: Db, storeId: string, roles: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ email: string }>(
    'SELECT DISTINCT u.email FROM store_memberships m JOIN users u ON u.id = m.user_id WHERE m.store_id = $1 AND m.role = ANY($2::text[])',
    [storeId, roles],
  );
  return rows.map((r) => r.email);
}

/** The email of a member of the store, or null (the audit trail names who acted). */
export async function memberEmail(db: Db, storeId: string, userId: string): Promise<string | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(userId)) return null;
  const [r] = await db.query<{ email: string }>(
    'SELECT u.email FROM store_memberships m JOIN users u ON u.id = m.user_id WHERE m.store_id = $1 AND m.user_id = $2',
    [storeId, userId],
  );
  return r?.email ?? null;
}
