import { scopesFor } from '../plugins/contract';
import { hasScope } from '../plugins/invoke';
import type { Registry } from '../plugins/registry';
import { restRoutes } from './rest';

/**
 * The store operations (`plugin.action`) a user's token may call: each REST route of a store that
 * takes a user's token and, when `scopes` are given, accepts one of them (the rule invoke's
 * checkScope applies). The console asks it instead of restating scopes and roles: the token's
 * answer lists them (plugins/users), and the console's types name every one (console/api-types.ts).
 */
export function userOperations(registry: Registry, scopes?: string[]): string[] {
  return restRoutes(registry)
    .filter((r) => r.scope === 'store' && r.auth.includes('user'))
    .filter((r) => !scopes || hasScope(scopes, scopesFor(r.plugin, r.action, 'user')))
    .map((r) => `${r.plugin.name}.${r.actionName}`);
}
