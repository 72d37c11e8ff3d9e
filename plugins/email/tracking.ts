import { timingSafeEqual } from 'node:crypto';
import { type Ctx, type Row } from '../../core/sdk';
import { addEvent, suppress } from './messages';
import { recordOpen } from './opens';

/**
 * The public side of tracking: the open pixel, click redirects and the unsubscribe page with its
 * RFC 8058 one-click POST. Links carry the message id and its random token (links.ts); a wrong
 * token answers exactly like an unknown message. Their routes are declared in tracking-actions.ts.
 */

// A transparent 1x1 GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_STORE = { 'cache-control': 'no-store, private' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Opens that no person made: mail-privacy prefetch (Apple Mail fetches every image on delivery
 * with a bare `Mozilla/5.0`), security scanners, and fetches seconds after delivery.
 */
const MACHINE_UA = /^Mozilla\/5\.0$|bot|crawler|spider|scanner|barracuda|mimecast|proofpoint|python|curl|wget|go-http|java\//i;
export function isMachineOpen(userAgent: string, sentAt: Date | null, now: Date): boolean {
  if (!userAgent.trim() || MACHINE_UA.test(userAgent.trim())) return true;
  return !!sentAt && now.getTime() - new Date(sentAt).getTime() < 2000;
}

const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function messageFor(ctx: Ctx, id: string, token: string): Promise<Row | undefined> {
  if (!UUID.test(id) || !/^[0-9a-f]{32}$/.test(token)) return undefined;
  const [m] = await ctx.db.query('SELECT * FROM email_messages WHERE id = $1', [id]);
  return m && sameToken(m.tracking_token, token) ? m : undefined;
}

const client = (ctx: Ctx) => ({ user_agent: ctx.http?.request.headers.get('user-agent') ?? '', ip: ctx.http?.clientIp ?? null });

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string, status = 200) =>
  new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>` +
      `<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    { status, headers: { 'content-type': 'text/html; charset=utf-8', ...NO_STORE } },
  );
const notFound = () => page('Link not found', '<p>This link is not valid.</p>', 404);

/**
 * The pixel answers at once: the open joins a batch written a few ms later (opens.ts), where the
 * token is checked. A wrong token records nothing, and the answer is the same either way.
 */
export async function openPixel(ctx: Ctx, input: { id: string; file: string }) {
  const token = input.file.replace(/\.gif$/, '');
  if (UUID.test(input.id) && /^[0-9a-f]{32}$/.test(token)) {
    const who = client(ctx);
    const at = ctx.clock.now();
    const open = {
      messageId: input.id.toLowerCase(),
      token,
      userAgent: who.user_agent,
      ip: who.ip,
      machineAgent: isMachineOpen(who.user_agent, null, at),
      at,
      registry: ctx.registry,
    };
    await recordOpen(ctx.db, open, ctx.log);
  }
  return new Response(PIXEL, { headers: { 'content-type': 'image/gif', ...NO_STORE } });
}

export async function clickRedirect(ctx: Ctx, input: { id: string; token: string; n: string }) {
  const m = await messageFor(ctx, input.id, input.token);
  const url = m && /^\d{1,4}$/.test(input.n) ? (m.links as string[])[Number(input.n)] : undefined;
  if (!m || !url) return notFound();
  const now = ctx.clock.now();
  await ctx.db.transaction((tx) => addEvent(tx, m, 'clicked', { url, ...client(ctx) }, now, ctx.registry));
  return new Response(null, { status: 302, headers: { location: url, ...NO_STORE } });
}

export async function unsubscribePage(ctx: Ctx, input: { id: string; token: string }) {
  const m = await messageFor(ctx, input.id, input.token);
  if (!m) return notFound();
  // A GET never unsubscribes (scanners follow links): the person confirms with the form's POST.
  const to = (m.to_addresses as string[]).join(', ');
  return page(
    'Unsubscribe',
    `<p>Stop marketing email to <strong>${escapeHtml(to)}</strong>?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export async function unsubscribe(ctx: Ctx, input: { id: string; token: string }) {
  const m = await messageFor(ctx, input.id, input.token);
  if (!m) return notFound();
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const fresh = await tx.query('SELECT 1 FROM email_events WHERE message_id = $1 AND event = $2 LIMIT 1', [m.id, 'unsubscribed']);
    await suppress(tx, m.store_id, m.to_addresses, 'unsubscribed', now);
    if (!fresh.length) await addEvent(tx, m, 'unsubscribed', client(ctx), now, ctx.registry);
  });
  return page('Unsubscribed', '<p>You will not receive marketing email from this sender any more.</p>');
}
