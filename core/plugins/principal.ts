import type { Plan } from '../plans';

// Who calls, and for which store: leaf types the contract (contract.ts) re-exports and names.

/**
 * Who is calling. Every authenticator (core/http/auth.ts) returns one of these; `invoke` checks
 * `scopes` the same way whatever the kind, so a user's token and an API key are held to one rule.
 */
export type Principal =
  | { kind: 'api_key'; keyId: string; storeId: string; scopes: string[]; livemode: boolean }
  | {
      kind: 'user';
      userId: string;
      storeId: string;
      scopes: string[];
      livemode: boolean;
      role: string;
      /** The OAuth grant the access token belongs to, and its issuer: the session svc_stores and svc_login move or end. */
      grant?: { id: string; issuer: string };
    }
  | { kind: 'admin'; storeId?: undefined; scopes: string[]; livemode: false }
  | { kind: 'public'; storeId?: undefined; scopes: string[]; livemode: false }
  /** A plugin's job or reaction: holds that plugin's own scopes, and runs as it (core/jobs/run.ts). */
  | { kind: 'job'; plugin: string; storeId?: string; scopes: string[]; livemode: false };

/**
 * The credential a request came with, as one id: idempotency records and MCP sessions belong to
 * it (an API key's id, or the user's id for a user's token).
 */
export function credentialId(p: Principal): string {
  if (p.kind === 'api_key') return p.keyId;
  if (p.kind === 'user') return p.userId;
  return p.kind;
}

/** The id an audit record or event names as the actor: a key id, a user id, or the operator. */
export function actorOf(p: Principal): { type: Principal['kind']; id: string | null } {
  if (p.kind === 'api_key') return { type: 'api_key', id: p.keyId };
  if (p.kind === 'user') return { type: 'user', id: p.userId };
  return { type: p.kind, id: null };
}

export interface Store {
  id: string;
  name: string;
  plan: Plan;
}
