import { isTool, scopesFor, type Principal } from '../plugins/contract';
import { hasScope } from '../plugins/invoke';
import type { Registry } from '../plugins/registry';
import { resolveCall } from '../tools/catalog';

/**
 * Incremental scope for OAuth clients (2025-11-25, SEP-835; issue 51). A user's token that lacks
 * the scope of the action it calls is answered HTTP 403 with `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope="..."` naming what to ask for (the token's scopes plus the one
 * missing), so the client re-authorizes and sends the call again. API keys cannot ask for more:
 * they keep SPEC's tool error. The first 401 names a starting set (every tool's read scope).
 */

/** The scope to ask for among those an action accepts: the narrowest (`products:write` over `products`). */
const narrowest = (accepted: string[]) => accepted.find((s) => s.includes(':')) ?? accepted[0];

const readScopes = new WeakMap<Registry, string>();

/** scope= of the first 401: the read scope of every tool, so a client's first grant can at least look. */
export function startingScopes(registry: Registry): string {
  let found = readScopes.get(registry);
  if (found === undefined) {
    const scopes = new Set<string>();
    for (const p of registry.plugins) {
      if (p.tool === false) continue;
      const read = Object.values(p.actions).find((a) => a.kind === 'read' && isTool(p, a));
      if (read) scopes.add(narrowest(scopesFor(p, read, 'user')));
    }
    readScopes.set(registry, (found = [...scopes].sort().join(' ')));
  }
  return found;
}

/** For a user's tools/call the token may not make: the scopes to ask for. Undefined for everything else. */
export function missingScope(registry: Registry, principal: Principal, body: unknown): string | undefined {
  if (principal.kind !== 'user') return undefined;
  const msg = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | undefined;
  if (msg?.method !== 'tools/call' || typeof msg.params?.name !== 'string') return undefined;
  const args = (typeof msg.params.arguments === 'object' && msg.params.arguments) || {};
  const call = resolveCall(registry, msg.params.name, args as Record<string, unknown>);
  const action = call?.actionName ? call.plugin.actions[call.actionName] : undefined;
  if (!call || !action || !isTool(call.plugin, action)) return undefined;
  const accepted = scopesFor(call.plugin, action, 'user');
  if (hasScope(principal.scopes, accepted)) return undefined;
  return [...new Set([...principal.scopes, narrowest(accepted)])].join(' ');
}
