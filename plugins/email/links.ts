import { errors } from '../../core/sdk';

/**
 * Tracking and unsubscribe links. Each message has a random token; its links carry the message id
 * and that token, so only the recipient's copy can record an open, a click or an unsubscribe, and a
 * click can only reach a URL of that message (by its index in the message's list: no open redirect).
 */
const origin = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

export const pixelPath = (id: string, token: string) => `/e/o/${id}/${token}.gif`;
export const clickPath = (id: string, token: string, n: number) => `/e/c/${id}/${token}/${n}`;
export const unsubscribePath = (id: string, token: string) => `/e/u/${id}/${token}`;

/** The unsubscribe link of a message; marketing mail cannot leave without one. */
export function unsubscribeUrl(publicUrl: string | undefined, id: string, token: string): string {
  if (!publicUrl) {
    throw errors.notConfigured('SVC_PUBLIC_URL', 'unsubscribe and tracking links need the public origin of this server');
  }
  return origin(publicUrl) + unsubscribePath(id, token);
}

const HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?:\/\/[^"']+)\2/gi;
const decodeEntities = (s: string) => s.replace(/&amp;/g, '&');

/**
 * The html with its http(s) links going through click redirects and an open pixel before
 * `</body>` (or at the end), plus the URLs a click may reach. Without SVC_PUBLIC_URL there is
 * no public address for them: the html is left as it is.
 */
export function trackedContent(html: string | null, publicUrl: string | undefined, id: string, token: string) {
  if (!html || !publicUrl) return { html, links: [] as string[] };
  const links: string[] = [];
  const base = origin(publicUrl);
  let out = html.replace(HREF, (whole, head: string, quote: string, url: string) => {
    if (url.startsWith(base + '/e/')) return whole; // the unsubscribe link stays direct
    links.push(decodeEntities(url));
    return `${head}${quote}${base}${clickPath(id, token, links.length - 1)}${quote}`;
  });
  const pixel = `<img src="${base}${pixelPath(id, token)}" width="1" height="1" alt="" style="display:none">`;
  out = /<\/body>/i.test(out) ? out.replace(/<\/body>/i, `${pixel}</body>`) : out + pixel;
  return { html: out, links };
}

/**
 * Addresses on the inbound domain (SVC_EMAIL_INBOUND_DOMAIN): `b-<message>` is a message's return
 * path (VERP), `t-<thread>-<token>` a thread's reply address, `s-<store>` a store's inbox.
 */
const hex = (uuid: string) => uuid.replace(/-/g, '');
export const uuidOf = (h: string) => h.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
export const verpAddress = (messageId: string, domain: string) => `b-${hex(messageId)}@${domain}`;
export const threadAddress = (threadId: string, token: string, domain: string) => `t-${hex(threadId)}-${token}@${domain}`;
export const storeInboxAddress = (storeId: string, domain: string) => `s-${hex(storeId)}@${domain}`;

export type InboundAddress =
  { kind: 'verp'; messageId: string } | { kind: 'thread'; threadId: string; token: string } | { kind: 'store'; storeId: string };

/** What an address on the inbound domain names, or null for any other address. */
export function parseInboundAddress(address: string, domain: string): InboundAddress | null {
  const [local, host] = [address.slice(0, address.lastIndexOf('@')).toLowerCase(), address.slice(address.lastIndexOf('@') + 1).toLowerCase()];
  if (host !== domain.toLowerCase()) return null;
  let m = /^b-([0-9a-f]{32})$/.exec(local);
  if (m) return { kind: 'verp', messageId: uuidOf(m[1]) };
  m = /^t-([0-9a-f]{32})-([0-9a-f]{16})$/.exec(local);
  if (m) return { kind: 'thread', threadId: uuidOf(m[1]), token: m[2] };
  m = /^s-([0-9a-f]{32})$/.exec(local);
  if (m) return { kind: 'store', storeId: uuidOf(m[1]) };
  return null;
}
