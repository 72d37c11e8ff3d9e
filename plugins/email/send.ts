import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { enqueue, errors, jobInsertStatement, jsonParam, type Ctx, type Plan, type Row } from '../../core/sdk';
import { DELIVER_QUEUE } from './delivery';
import { SMTP_MISSING, toMessage } from './messages';
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

const HOUR_MS = 3600_000;

/** The 429 of a full hour: a slot frees when the next UTC clock hour starts. */
function hourlyLimitReached(now: Date): never {
  const next = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  throw errors.rateLimited(Math.max(1, Math.ceil((next - now.getTime()) / 1000)));
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

/**
 * The sender: `from` on one of the store's verified domains, or the instance's SVC_EMAIL_FROM.
 * `needsDomain`: the domain check is left to the insert's statement (one round trip for all of it).
 */
function senderOf(config: Record<string, any>, from: string | undefined): { address: string; needsDomain: boolean } {
  const fallback = config.from as string | undefined;
  if (!from) {
    if (!fallback) throw errors.validation('No from given, and SVC_EMAIL_FROM (the default sender) is not set.', 'from');
    return { address: fallback.toLowerCase(), needsDomain: false };
  }
  const address = checkAddress(from, 'from');
  return { address, needsDomain: !(fallback && address === fallback.toLowerCase()) };
}
const UNVERIFIED_FROM = "from must be on one of the store's verified domains (POST /email/domains) or be SVC_EMAIL_FROM.";

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
  const sender = senderOf(config, input.from);
  const from = sender.address;
  const attachments = decodeAttachments(input.attachments);

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

  const host = from.slice(from.lastIndexOf('@') + 1);
  const now = ctx.clock.now();
  const limit = HOURLY_LIMIT[ctx.store.plan] ?? HOURLY_LIMIT.free;
  // One statement: the sender's domain, a slot in this hour's count (the row lock makes parallel
  // sends take turns, so the limit holds), the suppression list, the message, its daily count and
  // its delivery job (pg-boss's own insert, fed only when the message is queued). Nothing is
  // written unless the sender is allowed and the hour has room. One statement needs no
  // transaction, and the counter row's lock is held only until its commit.
  const smtpConfigured = !!config.smtp_url;
  const jobSql = smtpConfigured ? await jobInsertStatement(ctx.db, DELIVER_QUEUE) : undefined;
  const accept = (db: Ctx['db'], job: string) =>
    db.query<{ sender_ok: boolean; row: Row | null }>(
      `WITH sender AS (
       SELECT NOT $22::boolean OR EXISTS (SELECT 1 FROM email_domains WHERE store_id = $2 AND domain = $23 AND status = 'verified') AS ok
     ), slot AS (
       INSERT INTO email_hourly_sends (store_id, hour, messages) SELECT $2::uuid, $21::timestamptz, 1 FROM sender WHERE ok
       ON CONFLICT (store_id, hour) DO UPDATE SET messages = email_hourly_sends.messages + 1 WHERE email_hourly_sends.messages < $24
       RETURNING 1
     ), msg AS (
       INSERT INTO email_messages (id, store_id, to_addresses, from_address, reply_to, subject, html, text, category, template_id,
         template_version, tags, attachments, status, message_id_header, tracking_token, links, headers, thread_id, created_at, updated_at)
       SELECT $1::uuid, $2::uuid, $3::text::jsonb, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::uuid, $11::int,
         $12::text::jsonb, $13::text::jsonb,
         CASE WHEN (SELECT count(*) FROM email_suppressions WHERE store_id = $2 AND address IN (SELECT jsonb_array_elements_text($3::text::jsonb)))
                   = jsonb_array_length($3::text::jsonb) THEN 'suppressed' ELSE 'queued' END,
         $14::text, $15::text, $16::text::jsonb, $17::text::jsonb, $18::uuid, $19::timestamptz, $19::timestamptz
       FROM slot
       -- What the answer shows (toMessage), not the bodies, links and attachments it does not.
       RETURNING id, to_addresses, from_address, reply_to, subject, status, category, template_id, template_version, tags, smtp_response,
         created_at, updated_at
     ), daily AS (
       INSERT INTO email_daily_stats (store_id, day, event, shard, messages)
       SELECT $2::uuid, ($19::timestamptz AT TIME ZONE 'UTC')::date, 'sent', $20::int, 1 FROM msg WHERE status = 'queued'
       ON CONFLICT (store_id, day, event, shard) DO UPDATE SET messages = email_daily_stats.messages + 1
     )${job}
     SELECT (SELECT ok FROM sender) AS sender_ok, (SELECT to_jsonb(msg) FROM msg) AS row`,
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
        `<${id}@${host}>`,
        token,
        JSON.stringify(tracked.links),
        jsonParam(extras.headers),
        extras.threadId ?? null,
        now,
        Math.floor(Math.random() * 16),
        new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS),
        sender.needsDomain,
        host,
        limit,
        ...(jobSql ? [JSON.stringify([{ data: { message_id: id } }])] : []),
      ],
    );
  const [out] = jobSql
    ? await accept(ctx.db, `, job AS (${jobSql("SELECT $25::text FROM msg WHERE status = 'queued'")})`)
    : smtpConfigured
      ? // pg-boss's insert cannot be a CTE here: the job first, committed with the message (a refused
        // send leaves a job that finds nothing queued and does nothing).
        await ctx.db.transaction(async (tx) => (await enqueue(tx, DELIVER_QUEUE, [{ data: { message_id: id } }]), accept(tx, '')))
      : await accept(ctx.db, '');
  if (!out.sender_ok) throw errors.validation(UNVERIFIED_FROM, 'from');
  if (!out.row) hourlyLimitReached(now);
  const row = out.row;
  if (row.status === 'queued' && !smtpConfigured) ctx.log.warn(SMTP_MISSING, { message_id: id });
  return toMessage(row, { smtpConfigured });
}
