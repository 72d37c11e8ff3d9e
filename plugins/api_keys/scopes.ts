import { fail, type Principal } from '../../core/sdk';

/**
 * Whether `held` covers `scope`: the scope itself, or its bare resource (a bare `products` grants
 * `products:read` and `products:write`, SPEC 5.4).
 */
export function covers(held: readonly string[], scope: string): boolean {
  if (held.includes(scope)) return true;
  const i = scope.indexOf(':');
  return i > 0 && held.includes(scope.slice(0, i));
}

/**
 * A key or token can never make a key holding more than itself: each requested scope must be
 * covered by the caller's (403 naming the first that is not), and a sandbox key cannot make a live
 * one. The operator (admin token) may grant anything.
 */
export function checkDelegation(principal: Principal, scopes: readonly string[], livemode: boolean, param = 'scopes') {
  if (principal.kind === 'admin') return;
  for (const [i, s] of scopes.entries())
    if (!covers(principal.scopes, s))
      throw fail(
        'insufficient_scope',
        `Cannot grant ${s}: this credential does not hold it, and a key can never hold more scopes than the credential that makes it.`,
        `${param}[${i}]`,
      );
  if (livemode && principal.kind === 'api_key' && !principal.livemode)
    throw fail('insufficient_scope', 'A sandbox (svc_test_) key cannot make a live key.', 'livemode');
}

/** The scopes a new key gets when none are asked for: the operator's default, else the caller's own. */
export const defaultScopes = (principal: Principal, all: readonly string[], grantable: readonly string[]) =>
  principal.kind === 'admin' ? [...all] : principal.scopes.filter((s) => grantable.includes(s));
