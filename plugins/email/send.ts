import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { enqueue, errors, jsonParam, type Ctx, type Plan } from '../../core/sdk';
import { DELIVER_QUEUE } from './delivery';
import { verifiedDomainFor } from './domains';
import { countFirst, SMTP_MISSING, toMessage } from './messages';
import { LIMITS, type SendInput } from './schemas';
import { mergeVariables, renderVersion, storeVariables, templateVersion } from './templates';
import { trackedContent, unsubscribeUrl } from './links';

/** Messages a store may send per hour, by plan (README, Email: limits). */
export const HOURLY_LIMIT: Record<Plan, number> = { free: 100, starter: 1_000, pro: 10_000, enterprise: 100_000 };

// Deliberately plain: a local part without spaces or angle brackets, a dotted host of DNS labels.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function checkAddress(value: string, param: string): string {
  if (!ADDRESS.test(value)) throw errors.validation(`Invalid ${param}: '${value.slice(0, 80)}' is not an email address.`, param);
  return value.toLowerCase();
}

/** The addresses of the list that are on the store's suppression list. */
async function suppressedOf(ctx: Ctx, addresses: string[]): Promise<Set<string>> {
  const rows = await ctx.db.query<{ address: string }>('SELECT address FROM email_suppressions WHERE store_id = $1 AND address = ANY($2::text[])', [
    ctx.store.id,
    addresses,
  ]);
  return new Set(rows.map((r) => r.address));
}

async function checkHourlyLimit(ctx: Ctx) {
  const limit = HOURLY_LIMIT[ctx.store.plan] ?? HOURLY_LIMIT.free;
  const now = ctx.clock.now();
  const hourAgo = new Date(now.getTime() - 3600_000);
  const [row] = await ctx.db.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(created_at) AS oldest FROM email_messages WHERE store_id = $1 AND created_at > $2`,
    [ctx.store.id, hourAgo],
  );
  if (row.n >= limit) {
    // The window frees a slot when its oldest message is an hour old.
    const wait = row.oldest ? Math.max(1, Math.ceil((new Date(row.oldest).getTime() + 3600_000 - now.getTime()) / 1000)) : 3600;
    throw errors.rateLimited(wait);
  }
}

function decodeAttachments(list: Static<typeof SendInput>['attachments']) {
  if (!list?.length) return null;
  let total = 0;
  const out = list.map((a, i) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.content)) throw errors.validation(`attachments[${i}].content must be base64.`, `attachments[${i}].content`);
    total += Buffer.byteLength(a.content, 'base64');
    return { filename: a.filename, content_type: a.content_type, content: a.content };
  });
  if (total > LIMITS.attachmentsTotal) {
    throw errors.validation(`Attachments total ${total} bytes; the limit is ${LIMITS.attachmentsTotal} bytes.`, 'attachments');
  }
  return out;
}

/** The sender: `from` on one of the store's verified domains, or the instance's SVC_EMAIL_FROM. */
async function senderOf(ctx: Ctx, config: Record<string, any>, from: string | undefined): Promise<string> {
  const fallback = config.from as string | undefined;
  if (!from) {
    if (!fallback) throw errors.validation('No from given, and SVC_EMAIL_FROM (the default sender) is not set.', 'from');
    return fallback.toLowerCase();
  }
  const address = checkAddress(from, 'from');
  if (fallback && address === fallback.toLowerCase()) return address;
  if (!(await verifiedDomainFor(ctx.db, ctx.store.id, address))) {
    throw errors.validation(`from must be on one of the store's verified domains (POST /email/domains) or be SVC_EMAIL_FROM.`, 'from');
  }
  return address;
}

/** What another plugin's send adds (the shared inbox's replies): this plugin's config, thread headers. */
export interface SendExtras {
  config?: Record<string, any>;
  headers?: Record<string, string>;
  threadId?: string;
  /** false: links stay as written and no pixel is added (svc's own mail to members). */
  track?: boolean;
}

export async function sendEmail(ctx: Ctx, input: Static<typeof SendInput>, extras: SendExtras = {}) {
  const config = extras.config ?? ctx.config;
  const toList = (Array.isArray(input.to) ? input.to : [input.to]).map((a, i) => checkAddress(a, Array.isArray(input.to) ? `to[${i}]` : 'to'));
  const to = [...new Set(toList)];
  const replyTo = input.reply_to ? checkAddress(input.reply_to, 'reply_to') : null;
  if (input.template_id && (input.subject || input.html || input.text)) {
    throw errors.validation('Give either template_id (with variables) or subject with html/text, not both.', 'template_id');
  }
  const from = await senderOf(ctx, config, input.from);
  const attachments = decodeAttachments(input.attachments);
  await checkHourlyLimit(ctx);

  const id = crypto.randomUUID();
  const token = randomBytes(16).toString('hex');
  const publicUrl = config.public_url as string | undefined;
  let content: { subject: string; html: string | null; text: string | null };
  let category = input.category ?? 'transactional';
  let version: number | null = null;
  if (input.template_id) {
    const v = await templateVersion(ctx, input.template_id, input.version, 'template_id');
    category = input.category ?? v.category;
    version = v.version;
    // Marketing mail cannot go without its unsubscribe link; transactional mail gets one when it can.
    const unsub = category === 'marketing' || publicUrl ? { unsubscribe_url: unsubscribeUrl(publicUrl, id, token) } : {};
    const vars = mergeVariables(storeVariables(ctx, publicUrl), input.variables ?? {}, unsub);
    content = renderVersion(v, vars);
  } else {
    if (!input.subject) throw errors.validation('subject is required without template_id.', 'subject');
    if (!input.html && !input.text) throw errors.validation('Give html or text (or both) without template_id.', 'text');
    content = { subject: input.subject, html: input.html ?? null, text: input.text ?? null };
  }
  // Checked here, not at delivery: marketing mail carries List-Unsubscribe, which needs SVC_PUBLIC_URL.
  if (category === 'marketing') unsubscribeUrl(publicUrl, id, token);
  const tracked = extras.track === false ? { html: content.html, links: [] } : trackedContent(content.html, publicUrl, id, token);

  const suppressed = await suppressedOf(ctx, to);
  const status = to.every((a) => suppressed.has(a)) ? 'suppressed' : 'queued';
  const host = from.slice(from.lastIndexOf('@') + 1);
  const now = ctx.clock.now();
  const [row] = await ctx.db.query(
    `INSERT INTO email_messages (id, store_id, to_addresses, from_address, reply_to, subject, html, text, category, template_id,
       template_version, tags, attachments, status, message_id_header, tracking_token, links, headers, thread_id, created_at, updated_at)
     VALUES ($1, $2, $3::text::jsonb, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb, $13::text::jsonb, $14, $15, $16, $17::text::jsonb, $18::text::jsonb, $19, $20, $20) RETURNING *`,
    [
      id,
      ctx.store.id,
      JSON.stringify(to),
      from,
      replyTo,
      content.subject.replace(/[\r\n]+/g, ' '),
      tracked.html,
      content.text,
      category,
      input.template_id ?? null,
      version,
      JSON.stringify(input.tags ?? []),
      jsonParam(attachments),
      status,
      `<${id}@${host}>`,
      token,
      JSON.stringify(tracked.links),
      jsonParam(extras.headers),
      extras.threadId ?? null,
      now,
    ],
  );
  if (status === 'queued') await countFirst(ctx.db, ctx.store.id, id, 'sent', now);
  const smtpConfigured = !!config.smtp_url;
  if (status === 'queued' && smtpConfigured) await enqueue(ctx.db, DELIVER_QUEUE, [{ data: { message_id: id } }]);
  if (status === 'queued' && !smtpConfigured) ctx.log.warn(SMTP_MISSING, { message_id: id });
  return toMessage(row, { smtpConfigured });
}
