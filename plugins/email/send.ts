import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { errors, PLAN_LIMITS, type Ctx, type Plan } from '../../core/sdk';
import { checkAddress } from './address';
import type { EmailSettings } from './config';
import { acceptMessage } from './accept';
import { SMTP_MISSING, toMessage } from './messages';
import { LIMITS, type SendInput } from './schemas';
import { mergeVariables, renderVersion, storeVariables, templateVersion } from './templates';
import { trackedContent, unsubscribeUrl } from './links';

/** Messages a store may send per hour, by plan (README, Email: limits). */
export const HOURLY_LIMIT = Object.fromEntries(
  Object.entries(PLAN_LIMITS).map(([plan, l]) => [plan, l.emails_per_hour ?? Number.MAX_SAFE_INTEGER]),
) as Record<Plan, number>;

// In address.ts (public.ts hands it out without loading this module); kept here for this module's users.
export { checkAddress };

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
function senderOf(config: EmailSettings, from: string | undefined): { address: string; needsDomain: boolean } {
  const fallback = config.from;
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
  /** Email's settings when the caller's ctx is another plugin's (`emailSettings(ctx.registry)`, public.ts). */
  config?: EmailSettings;
  headers?: Record<string, string>;
  threadId?: string;
  /** false: links stay as written and no pixel is added (svc's own mail to members). */
  track?: boolean;
}

export async function sendEmail(ctx: Ctx, input: Static<typeof SendInput>, extras: SendExtras = {}) {
  const config: EmailSettings = extras.config ?? ctx.config;
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
  // Mail is read later, away from this request: only the configured public origin is a safe link.
  const publicUrl = ctx.registry.site.publicUrl;
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
  const smtpConfigured = !!config.smtp_url;
  // One statement (accept.ts): sender, hourly slot, suppression, message, daily count, delivery job;
  // the store's sends that arrive meanwhile share the next one.
  const lane = {
    storeId: ctx.store.id,
    hour: new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS),
    limit,
    withJob: smtpConfigured,
    enqueue: ctx.enqueue,
  };
  const out = await acceptMessage(ctx.db, lane, {
    id,
    to_addresses: to,
    from_address: from,
    reply_to: replyTo,
    subject: content.subject.replace(/[\r\n]+/g, ' '),
    html: tracked.html,
    text: content.text,
    category,
    template_id: input.template_id ?? null,
    template_version: version,
    tags: input.tags ?? [],
    attachments,
    message_id_header: `<${id}@${host}>`,
    tracking_token: token,
    links: tracked.links,
    headers: extras.headers ?? null,
    thread_id: extras.threadId ?? null,
    created_at: now,
    needs_domain: sender.needsDomain,
    host,
  });
  if (!out.sender_ok) throw errors.validation(UNVERIFIED_FROM, 'from');
  if (!out.row) hourlyLimitReached(now);
  const row = out.row;
  if (row.status === 'queued' && !smtpConfigured) ctx.log.warn(SMTP_MISSING, { message_id: id });
  return toMessage(row, { smtpConfigured });
}
