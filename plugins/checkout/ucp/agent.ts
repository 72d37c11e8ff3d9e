/**
 * Who is calling: the agent's profile (UCP-Agent, or the MCP binding's meta["ucp-agent"]),
 * checked against the store's `allowed_profiles`, and its RFC 9421 signature verified when present
 * (required when the store sets `require_signatures`). Signatures cover what the agent sent, so the
 * URL they are checked against is rebuilt from the Host header and the request target.
 */
import type { AgenticSettings } from '../engine';
import { ucpFail } from './errors';
import { agentKey, agentProfile, profileUrlOf, type AgentProfile } from './profiles';
import { verifyMessage } from './signatures';

export interface Identify {
  request: Request;
  body: Uint8Array;
  settings: AgenticSettings;
  allowInsecure: boolean;
  now: number;
  /** The MCP binding's meta["ucp-agent"].profile; REST reads the UCP-Agent header. */
  metaProfile?: string;
}

/** The URL as the agent addressed it: its Host, and the request's path and query. */
export function addressedUrl(request: Request): string {
  const u = new URL(request.url);
  const host = request.headers.get('host') ?? u.host;
  return `https://${host}${u.pathname}${u.search}`;
}

/** The components a request's signature must cover (signatures.md "REST Request Signing"). */
function requiredComponents(request: Request, hasBody: boolean): string[] {
  const out = ['@method', '@authority', '@path'];
  if (new URL(request.url).search) out.push('@query');
  if (request.headers.has('ucp-agent')) out.push('ucp-agent');
  if (request.headers.has('idempotency-key') && request.method !== 'GET') out.push('idempotency-key');
  if (hasBody) out.push('content-digest', 'content-type');
  return out;
}

export async function identifyAgent(i: Identify): Promise<AgentProfile> {
  const header = i.request.headers.get('ucp-agent');
  const url = profileUrlOf(i.metaProfile !== undefined ? `profile="${i.metaProfile.replace(/"/g, '\\"')}"` : header, i.allowInsecure);
  if (i.metaProfile !== undefined && header && profileUrlOf(header, i.allowInsecure) !== url) {
    // Identity binding (overview.md): the signer named in the header is the agent the call is for.
    throw ucpFail('invalid_profile_url', 'meta["ucp-agent"].profile and the UCP-Agent header name different profiles.');
  }
  const allowed = i.settings.ucp.allowed_profiles;
  if (allowed.length && !allowed.some((prefix) => url.startsWith(prefix))) {
    throw ucpFail('profile_not_trusted', 'This store takes UCP checkouts only from the agents it lists; this profile is not one of them.');
  }
  const opts = { allowInsecure: i.allowInsecure, now: i.now };
  const agent = await agentProfile(url, opts);
  const signed = i.request.headers.has('signature') || i.request.headers.has('signature-input');
  if (!signed) {
    if (i.settings.ucp.require_signatures)
      throw ucpFail('signature_missing', 'This store requires RFC 9421 request signatures (Signature-Input, Signature).');
    return agent;
  }
  await verifyMessage({
    message: { method: i.request.method, url: addressedUrl(i.request), headers: i.request.headers },
    body: i.body,
    keys: (kid) => agentKey(agent, kid, opts),
    required: requiredComponents(i.request, i.body.byteLength > 0),
  });
  return agent;
}
