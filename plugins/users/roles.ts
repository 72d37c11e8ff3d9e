import type { Registry } from '../../core/platform';

export const ROLES = ['owner', 'admin', 'approver', 'staff', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (r: unknown): r is Role => ROLES.includes(r as Role);

/** Resources staff work on day to day (read and write); everything else they may only read. */
const STAFF_WRITES = ['products', 'orders', 'customers', 'inventory', 'catalog', 'commerce', 'media', 'marketing', 'crm', 'documents', 'ai'];

/**
 * What a role allows, scope by scope (README, "Roles"). A bare scope (`products`) means read and
 * write, so a role allows it only when it allows both.
 *
 * | role     | may                                                                   |
 * | owner    | everything, including managing owners                                  |
 * | admin    | everything except managing owners                                      |
 * | approver | read everything; approve and reject held tool calls (approvals:write)  |
 * | staff    | read everything; write the commerce resources and agents              |
 * | viewer   | read everything                                                        |
 */
export function roleAllows(role: Role, scope: string): boolean {
  if (role === 'owner' || role === 'admin') return true;
  const [resource, act] = scope.split(':');
  const reads = act === 'read';
  if (role === 'viewer') return reads;
  if (role === 'approver') return reads || scope === 'approvals:write';
  return reads || (STAFF_WRITES.includes(resource) && resource !== 'platform');
}

/** Every scope a user's token may carry: the registry's `resource:action` scopes and the bare resources. */
export function scopeUniverse(registry: Registry): string[] {
  const all = new Set(registry.scopes);
  for (const p of registry.plugins) for (const s of [...p.scopes.read, ...p.scopes.write]) if (s !== 'admin') all.add(s);
  return [...all].sort();
}

/**
 * The scopes a role holds in a store, as a concrete list. Computed once per registry and role (it
 * is read on every request made with a user's token; a registry never changes after boot).
 */
const byRegistry = new WeakMap<Registry, Map<Role, string[]>>();
export function roleScopes(registry: Registry, role: Role): string[] {
  let roles = byRegistry.get(registry);
  if (!roles) byRegistry.set(registry, (roles = new Map()));
  let scopes = roles.get(role);
  if (!scopes) roles.set(role, (scopes = scopeUniverse(registry).filter((s) => roleAllows(role, s))));
  return scopes;
}

/** The requested scopes this role allows (all it allows when none are requested). */
export function grantable(registry: Registry, role: Role, requested: string[] | undefined): string[] {
  const allowed = roleScopes(registry, role);
  return requested?.length ? requested.filter((s) => allowed.includes(s)) : allowed;
}

/** Owners and admins manage members and invitations; only owners touch owners. */
export const managesMembers = (role: string) => role === 'owner' || role === 'admin';
/** The roles a member with `role` may give (and so change or take away). */
export const assignableRoles = (role: Role): Role[] => (managesMembers(role) ? ROLES.filter((r) => r !== 'owner' || role === 'owner') : []);

/** The scopes in words, for the consent page. */
export function describeScope(scope: string): string {
  const [resource, act] = scope.split(':');
  const noun = resource.replaceAll('_', ' ');
  if (resource === 'platform' && !act) return 'administer the store (keys, settings, platform tools)';
  if (act === 'read') return `view ${noun}`;
  if (act === 'write') return `change ${noun}`;
  return `view and change ${noun}`;
}
