import { createPrivateKey, type KeyObject } from 'node:crypto';
// nodemailer is loaded at the first message sent: a server that sends none never holds it (docs/footprint.md).
import type { Transporter } from 'nodemailer';
import { errorFields, type JobCtx, type Row } from '../../core/sdk';
import { dkimSign } from './dkim';
import { composeSimple } from './mime';
import { dkimPrivateKey, SELECTOR } from './domains';
import { addEvent, markDelivered, suppress, type Delivered } from './messages';
import { unsubscribeUrl, verpAddress } from './links';

export const DELIVER_QUEUE = 'email.deliver';
/** The `deliver` job's input: one message. */
// Declared with the schemas (index.ts takes it at start); kept here for this module's users.
export { DeliverInput } from './schemas';
/** Attempts before a message that keeps meeting 4xx answers (or no relay at all) is `failed`. */
export const MAX_ATTEMPTS = 10;
/** Delay before attempt n+1: 30 s doubling, capped at an hour (about 9 hours over all attempts). */
export const backoffSeconds = (attempts: number) => Math.min(3600, 30 * 2 ** Math.max(0, attempts - 1));

// One pooled transport per relay URL per process: connections are reused across jobs.
const transports = new Map<string, Transporter>();
async function transportFor(url: string): Promise<Transporter> {
  let t = transports.get(url);
  if (!t) {
    const { default: nodemailer } = await import('nodemailer');
    t = transports.get(url); // another send may have made it while this one waited
    if (t) return t;
    t = nodemailer.createTransport({ url, pool: true, maxConnections: 5, maxMessages: 1000 } as any);
    transports.set(url, t);
  }
  return t;
}

/** Tests and shutdown: close the pooled connections. */
export function closeTransports() {
  for (const t of transports.values()) t.close();
  transports.clear();
}

// Unsealed DKIM keys by domain, parsed once: unsealing and parsing the PEM per message cost more
// than the signature. An entry holds for its sealed text only, so a domain whose key changes (or a
// deleted and re-added one) is unsealed anew. Bounded: past the cap the oldest entries go.
const KEYS_MAX = 1000;
const keys = new Map<string, { sealed: string; key: KeyObject }>();
function signingKey(domain: Row): KeyObject {
  const hit = keys.get(domain.id);
  if (hit && hit.sealed === domain.dkim_private_sealed) return hit.key;
  const key = createPrivateKey(dkimPrivateKey(domain));
  keys.delete(domain.id);
  if (keys.size >= KEYS_MAX) keys.delete(keys.keys().next().value!);
  keys.set(domain.id, { sealed: domain.dkim_private_sealed, key });
  return key;
}

/** The mail as nodemailer composes it (the envelope apart). */
function mailOf(deps: JobCtx, m: Row) {
  const headers: Record<string, string> = {};
  if (m.category === 'marketing') {
    // RFC 8058 one-click: mail providers POST to the URL; the same URL shows a page on GET.
    headers['List-Unsubscribe'] = `<${unsubscribeUrl(deps.registry.site.publicUrl, m.id, m.tracking_token)}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    from: m.from_address,
    to: m.to_addresses as string[],
    replyTo: m.reply_to ?? undefined,
    subject: m.subject,
    html: m.html ?? undefined,
    text: m.text ?? undefined,
    messageId: m.message_id_header,
    date: deps.clock.now(),
    headers: { ...headers, ...(m.headers ?? {}) },
    attachments: (m.attachments ?? []).map((a: any) => ({
      filename: a.filename,
      contentType: a.content_type,
      content: a.content,
      encoding: 'base64',
    })),
  };
}

/**
 * Composes, signs (DKIM with the from domain's own key when the store verified it: `domain`) and
 * hands one message to the relay; resolves with the relay's answer.
 */
async function sendOne(deps: JobCtx, m: Row, domain: Row | null): Promise<string> {
  const mail = mailOf(deps, m);
  let raw = composeSimple(mail);
  if (raw == null) {
    const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
    raw = await new MailComposer(mail as any).compile().build();
  }
  if (domain) raw = dkimSign(raw, { domainName: domain.domain, keySelector: SELECTOR, privateKey: signingKey(domain) });
  // VERP: a return path per message, so a bounce or complaint names the message it is about.
  const inbound = deps.config.inbound_domain as string | undefined;
  const to = m.to_addresses as string[];
  const envelope = { from: inbound ? verpAddress(m.id, inbound) : m.from_address, to };
  const info = await (await transportFor(deps.config.smtp_url)).sendMail({ envelope, raw });
  return info.response ?? '250';
}

/** What a relay's refusal, or no relay at all, does to a claimed message. */
async function failed(deps: JobCtx, m: Row, e: unknown) {
  const { db, clock, log } = deps;
  const err = e as Error & { responseCode?: number; response?: string; code?: string };
  const at = clock.now();
  if (err.responseCode && err.responseCode >= 500) {
    // A permanent refusal: the address joins the suppression list so it is not tried again.
    await db.transaction(async (tx) => {
      await tx.query(`UPDATE email_messages SET status = 'bounced', smtp_response = $2, updated_at = $3 WHERE id = $1`, [
        m.id,
        err.response ?? err.message,
        at,
      ]);
      await suppress(tx, m.store_id, m.to_addresses, 'bounced', at);
      await addEvent(tx, m, 'bounced', { smtp_response: err.response ?? err.message, code: err.responseCode }, at, deps.registry);
    });
    return;
  }
  // 4xx or no answer at all (relay down): try again later, unless the attempts are spent.
  const spent = m.attempts >= MAX_ATTEMPTS;
  const response = err.response ?? `${err.code ?? 'error'}: ${err.message}`;
  await db.transaction(async (tx) => {
    await tx.query(`UPDATE email_messages SET status = $2, smtp_response = $3, updated_at = $4 WHERE id = $1`, [
      m.id,
      spent ? 'failed' : 'queued',
      response,
      at,
    ]);
    if (!spent) await deps.enqueue('deliver', { message_id: m.id }, { startAfter: backoffSeconds(m.attempts), db: tx });
  });
  log.warn('email delivery deferred', { message_id: m.id, attempts: m.attempts, failed: spent, ...errorFields(err) });
}

/**
 * The `deliver` job: each payload is `{message_id}`. Each message is sent at most once: only the
 * job that moves it from queued to sending sends it. The batch is claimed in one statement (with
 * each sender's verified domain, for its DKIM key), its messages go out in parallel, and the
 * relay's 250s are recorded in one statement when all have answered: two commits per batch
 * instead of two per message, which was most of what a message cost the database.
 */
export async function deliverBatch(deps: JobCtx, batch: { message_id: string }[]) {
  const { db, clock, config } = deps;
  if (!config.smtp_url) return; // stays queued; the start-up warning and the send response name SMTP_URL
  const ids = [...new Set(batch.map((p) => p.message_id))];
  if (!ids.length) return;
  // Rows are locked in id order, so two workers holding duplicate jobs cannot deadlock; the one
  // that waited finds the message no longer queued and leaves it.
  const claimed = await db.query<{ m: Row; domain: Row | null }>(
    `WITH m AS (
       UPDATE email_messages SET status = 'sending', attempts = attempts + 1, updated_at = $2
       WHERE id IN (SELECT id FROM email_messages WHERE id IN (SELECT jsonb_array_elements_text($1::text::jsonb)::uuid) ORDER BY id FOR UPDATE)
         AND status = 'queued'
       RETURNING *
     )
     SELECT to_jsonb(m) AS m,
            (SELECT jsonb_build_object('id', d.id, 'domain', d.domain, 'dkim_private_sealed', d.dkim_private_sealed) FROM email_domains d
             WHERE d.store_id = m.store_id AND d.domain = lower(split_part(m.from_address, '@', 2)) AND d.status = 'verified') AS domain
     FROM m`,
    [JSON.stringify(ids), clock.now()],
  );
  const sends = await Promise.allSettled(claimed.map(({ m, domain }) => sendOne(deps, m, domain)));
  const delivered: Delivered[] = [];
  const refused: { m: Row; reason: unknown }[] = [];
  sends.forEach((s, i) =>
    s.status === 'fulfilled' ? delivered.push({ m: claimed[i].m, response: s.value }) : refused.push({ m: claimed[i].m, reason: s.reason }),
  );
  // The 250s first: whatever happens to the refusals' bookkeeping, what went out is recorded.
  const at = clock.now();
  if (delivered.length) await db.transaction((tx) => markDelivered(tx, delivered, at, deps.registry));
  const outcomes = await Promise.allSettled(refused.map(({ m, reason }) => failed(deps, m, reason)));
  const error = outcomes.find((o) => o.status === 'rejected');
  if (error) throw (error as PromiseRejectedResult).reason;
}

/**
 * The `requeue` job: queued messages untouched for longer than the longest retry delay have no
 * job waiting (sent while SMTP_URL was unset, or a job lost): give them one. A duplicate job is
 * harmless, since only one job can move a message from queued to sending.
 */
export async function requeueStale(deps: JobCtx) {
  if (!deps.config.smtp_url) return;
  const before = new Date(deps.clock.now().getTime() - (backoffSeconds(MAX_ATTEMPTS) + 300) * 1000);
  const rows = await deps.db.query<{ id: string }>(`SELECT id FROM email_messages WHERE status = 'queued' AND updated_at < $1 LIMIT 10000`, [before]);
  // Hourly send counters of past hours are no longer read (send.ts).
  await deps.db.query('DELETE FROM email_hourly_sends WHERE hour < $1', [new Date(deps.clock.now().getTime() - 2 * 3600_000)]);
  if (rows.length)
    await deps.enqueue(
      'deliver',
      rows.map((r) => ({ message_id: r.id })),
    );
}
