import { timingSafeEqual } from 'node:crypto';
import { Type, type TSchema } from '@sinclair/typebox';
import { errors, fail, SvcError } from '../errors';
import { secretBox } from '../secrets';
import { configuredOrigin } from '../net/site';
import type { ActionDef, Principal, Registry } from '../plugins/contract';

/**
 * A raw action (`rest.response: 'raw'`, its handler returns a Response) reaches agents and MCP
 * clients in the form its declaration names in `rest.asTool`:
 * - `image`: the bytes as image content (base64 and its media type), for what a model can look at;
 * - `link`: a signed link `{url, expires_at}` that serves the bytes without a credential until it
 *   expires, for what a model cannot read (a PDF, a CSV, a ZIP) but a person or a program fetches.
 */

/** The media types MCP image content may carry. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'];

export const ImageAnswer = Type.Object(
  {
    object: Type.Literal('image'),
    mime_type: Type.String({ description: 'The media type of the image.' }),
    bytes: Type.Integer({ description: 'The size of the image in bytes.' }),
  },
  { description: 'The image comes as MCP image content beside this object.' },
);

export const SignedLink = Type.Object(
  {
    object: Type.Literal('signed_link'),
    url: Type.String({ description: 'GET it without a credential until expires_at; the bytes come as the REST route answers them.' }),
    expires_at: Type.String({ format: 'date-time' }),
    content_type: Type.String({ description: 'The media type the link answers.' }),
  },
  { description: 'A link to the answer, signed by this server.' },
);

/** What a tool call of this action answers (its `outputSchema`): a raw action's own form, else its output. */
export const toolOutputOf = (a: ActionDef): TSchema => (a.rest?.response !== 'raw' ? a.output : a.rest.asTool === 'image' ? ImageAnswer : SignedLink);

/** The media type of a Response, without parameters. */
const mediaType = (res: Response) => (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();

/** A raw answer that is not a success, as the error a tool shows (the SPEC envelope's code when it has one). */
async function failureOf(res: Response): Promise<SvcError> {
  const text = await res.text().catch(() => '');
  try {
    const e = JSON.parse(text)?.error;
    if (e && typeof e.code === 'string') return fail(e.code, String(e.message ?? ''), e.param ?? null);
  } catch {
    // not JSON: fall through
  }
  return errors.internal();
}

export interface LinkCaller {
  registry: Registry;
  principal: Principal;
  store: { id: string };
  clock: { now(): Date };
  /** The origin the client reached; else SVC_PUBLIC_URL, else provider_not_configured. */
  origin?: string;
}

/** A raw action's Response as a tool answer: image content, or a signed link to run it again. */
export async function toolAnswer(target: string, action: ActionDef, input: unknown, res: Response, caller: LinkCaller): Promise<unknown> {
  if (!res.ok) throw await failureOf(res);
  const type = mediaType(res);
  if (action.rest?.asTool === 'image') {
    if (!IMAGE_TYPES.includes(type)) throw new Error(`${target}: declared asTool 'image' but answered '${type}'`);
    const bytes = Buffer.from(await res.arrayBuffer());
    return { object: 'image', mime_type: type, bytes: bytes.length, image: { object: 'image', mime_type: type, data: bytes.toString('base64') } };
  }
  // The answer proved the call works (a 404 is the tool's error, not a link to one); the link
  // runs it again when fetched, so nothing is stored.
  await res.body?.cancel();
  return { object: 'signed_link', content_type: type, ...signLink(target, input, caller, action.rest?.linkTtlS) };
}

/** What a link carries: the call to run again, as whom, until when. Signed, not secret. */
interface LinkClaims {
  /** The store. */
  s: string;
  /** `plugin.action`. */
  t: string;
  i: unknown;
  /** The caller: a key's or a user's id, the user's role, live mode. */
  p: { k: 'api_key' | 'user'; id: string; r?: string; l: boolean };
  /** Expiry, Unix seconds. */
  e: number;
}

const PURPOSE = 'svc signed link v1';
export const SIGNED_PATH = '/v1/signed/';

/** `ttlS`: the action's own `rest.linkTtlS`, else SVC_SIGNED_URL_TTL_S. */
export function signLink(target: string, input: unknown, caller: LinkCaller, ttlS?: number): { url: string; expires_at: string } {
  const p = caller.principal;
  if (p.kind !== 'api_key' && p.kind !== 'user') throw new Error('signed links are made for a store credential');
  const origin = caller.origin ?? configuredOrigin(caller.registry.site);
  const expires = Math.floor(caller.clock.now().getTime() / 1000) + (ttlS ?? caller.registry.site.signedUrlTtlS);
  const who = p.kind === 'api_key' ? { k: p.kind, id: p.keyId, l: p.livemode } : { k: p.kind, id: p.userId, r: p.role, l: p.livemode };
  const claims: LinkClaims = { s: caller.store.id, t: target, i: input, p: who, e: expires };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const sig = secretBox().mac(PURPOSE, body).toString('base64url');
  return { url: `${origin}${SIGNED_PATH}${body}.${sig}`, expires_at: new Date(expires * 1000).toISOString() };
}

/**
 * A link's claims, checked: the signature (in constant time) first, then the expiry. A tampered
 * link is `signed_link_invalid`, an old one `signed_link_expired`; both are 403.
 */
export function openLink(token: string, now: Date): LinkClaims {
  const [body, sig, extra] = token.split('.');
  const invalid = () => fail('signed_link_invalid', 'This link is not valid: it was altered, or made by another server.');
  if (!body || !sig || extra !== undefined) throw invalid();
  const given = Buffer.from(sig, 'base64url');
  const expected = secretBox().mac(PURPOSE, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as LinkClaims;
  if (now.getTime() / 1000 >= claims.e)
    throw fail('signed_link_expired', `This link expired at ${new Date(claims.e * 1000).toISOString()}: call the tool again for a new one.`);
  return claims;
}

/** The principal a link runs as: its maker, held to the scopes the action accepts (no more than it had). */
export function linkPrincipal(claims: LinkClaims, scopes: string[]): Principal {
  const { p } = claims;
  return p.k === 'api_key'
    ? { kind: 'api_key', keyId: p.id, storeId: claims.s, scopes, livemode: p.l }
    : { kind: 'user', userId: p.id, storeId: claims.s, scopes, livemode: p.l, role: p.r ?? 'viewer' };
}
