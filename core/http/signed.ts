import { getStore } from '../keys';
import { newRequestId } from '../ids';
import { requestFacts } from '../net/site';
import { acceptedScopes } from '../plugins/contract';
import { callerCtx, invoke, resolveAction } from '../plugins/invoke';
import { SIGNED_PATH, linkPrincipal, openLink } from '../tools/raw-answers';
import { fail } from '../errors';
import { baseHeaders, errorResponse } from './respond';
import type { Services } from './services';

/** `GET /v1/signed/{token}`: a raw answer a tool call offered as a signed link (core/tools/raw-answers.ts). */
export const SIGNED_ROUTE = `${SIGNED_PATH}:token`;

/**
 * Serves a signed link without a credential: the signature and expiry are the credential. The
 * action runs again, through invoke, in the link's store as its maker, with the input it was signed
 * with; the bytes come as the REST route answers them. Tampered or expired: 403 with the envelope.
 */
export async function serveSigned(svc: Services, request: Request, token: string, peer?: () => string | undefined): Promise<Response> {
  const requestId = newRequestId();
  const headers = baseHeaders(requestId);
  try {
    const claims = openLink(token, svc.clock.now());
    const ref = resolveLinkTarget(svc, claims.t);
    const store = await getStore(svc.db, claims.s);
    if (!store) throw fail('signed_link_invalid', 'This link is not valid: its store no longer exists.');
    // A link lives no longer than the key that made it: revoking a key ends its links too.
    if (claims.p.k === 'api_key' && !(await keyLive(svc, claims.p.id, claims.s)))
      throw fail('signed_link_invalid', 'This link is not valid: the API key that made it was revoked or expired.');
    const principal = linkPrincipal(claims, acceptedScopes(ref.plugin, ref.action.kind));
    const http = requestFacts(svc.registry.site, request, peer);
    const res = (await invoke(ref.plugin, ref.action, callerCtx(svc, principal, store, { requestId, http }), claims.i)) as Response;
    const merged = new Headers(headers);
    merged.delete('Content-Type');
    res.headers.forEach((v, k) => merged.set(k, v));
    // Whoever holds the link may fetch it, but no shared cache should keep a store's data.
    merged.set('Cache-Control', 'private, no-store');
    return new Response(res.body, { status: res.status, headers: merged });
  } catch (err) {
    return errorResponse(err, requestId, headers, svc.log);
  }
}

async function keyLive(svc: Services, keyId: string, storeId: string): Promise<boolean> {
  const rows = await svc.db.query(
    'SELECT 1 FROM api_keys WHERE id = $1 AND store_id = $2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)',
    [keyId, storeId, svc.clock.now()],
  );
  return rows.length > 0;
}

/** The action a link names, still one that offers links (a later release may have changed it). */
function resolveLinkTarget(svc: Services, target: string) {
  try {
    const ref = resolveAction(svc.registry, target);
    if (ref.action.rest?.asTool === 'link') return ref;
  } catch {
    // unknown action: below
  }
  throw fail('signed_link_invalid', 'This link is not valid on this server.');
}
