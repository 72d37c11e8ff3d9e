import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { errors, iso, listPage, rowOr404, stamps, type Ctx, type Db, type Row } from '../../core/sdk';
import { emailSettings, messageIdHeader, sendEmail, storeInboxAddress, threadAddress } from '../email/public';
import { isMember } from '../users/public';
import type { ReplyInput, ThreadQuery, ThreadUpdate } from './schemas';

const emailConfig = (ctx: { registry: Ctx['registry'] }) => emailSettings(ctx.registry);

export const toThread = (r: Row, inboundDomain?: string) => ({
  object: 'email_thread' as const,
  id: r.id,
  subject: r.subject,
  customer_id: r.customer_id ?? null,
  customer_email: r.customer_email,
  status: r.status,
  message_count: r.message_count,
  last_message_at: iso(r.last_message_at),
  assigned_to: r.assigned_to ?? null,
  reply_address: inboundDomain ? threadAddress(r.id, r.reply_token, inboundDomain) : null,
  ...stamps(r),
});

const toThreadMessage = (r: Row) => ({
  object: 'email_thread_message' as const,
  id: r.id,
  direction: r.direction,
  from: r.from_address,
  subject: r.subject,
  text: r.text ?? null,
  html: r.html ?? null,
  message_id: r.message_id_header ?? null,
  email_message_id: r.email_message_id ?? null,
  created_at: iso(r.created_at),
});

/** The store's inbox: the address its mail is forwarded to (s-<store id, hex>@ the inbound domain) and what waits. */
export async function getInbox(ctx: Ctx) {
  const domain = emailConfig(ctx).inbound_domain as string | undefined;
  const [{ n }] = await ctx.db.query(`SELECT count(*)::int AS n FROM email_threads WHERE store_id = $1 AND status = 'open'`, [ctx.store.id]);
  return { object: 'email_inbox' as const, inbox_address: domain ? storeInboxAddress(ctx.store.id, domain) : null, open_threads: n };
}

const threadRow = (ctx: Ctx, id: string, lock = false) =>
  rowOr404(ctx.db, { table: 'email_threads', storeId: ctx.store.id, id, noun: 'email thread', ...(lock ? { lock: 'FOR UPDATE' as const } : {}) });

export const listThreads = (ctx: Ctx, input: Static<typeof ThreadQuery>) =>
  listPage(ctx, { table: 'email_threads', path: '/email/threads', input, filters: { 'status = $': input.status } }, (rows) =>
    rows.map((r) => toThread(r, emailConfig(ctx).inbound_domain)),
  );

export async function getThread(ctx: Ctx, id: string) {
  const t = await threadRow(ctx, id);
  const messages = await ctx.db.query('SELECT * FROM email_thread_messages WHERE store_id = $1 AND thread_id = $2 ORDER BY seq', [ctx.store.id, id]);
  return { ...toThread(t, emailConfig(ctx).inbound_domain), messages: messages.map(toThreadMessage) };
}

export async function updateThread(ctx: Ctx, input: Static<typeof ThreadUpdate>) {
  await threadRow(ctx, input.id, true);
  if (input.assigned_to && !(await isMember(ctx.db, ctx.store.id, input.assigned_to))) {
    throw errors.validation('assigned_to must be a member of the store (a user id).', 'assigned_to');
  }
  const [row] = await ctx.db.query(
    `UPDATE email_threads SET status = coalesce($3, status),
       assigned_to = CASE WHEN $4 THEN $5::uuid ELSE assigned_to END, updated_at = $6
     WHERE store_id = $1 AND id = $2 RETURNING *`,
    [ctx.store.id, input.id, input.status ?? null, input.assigned_to !== undefined, input.assigned_to ?? null, ctx.clock.now()],
  );
  return toThread(row, emailConfig(ctx).inbound_domain);
}

/**
 * A reply through the email pipeline (limits, suppression, delivery job, DKIM), with the headers
 * that make the customer's mail client thread it and the thread's own address as Reply-To.
 */
export async function reply(ctx: Ctx, input: Static<typeof ReplyInput>) {
  const t = await threadRow(ctx, input.id, true);
  const config = emailConfig(ctx);
  const earlier = await ctx.db.query<{ message_id_header: string }>(
    `SELECT message_id_header FROM email_thread_messages WHERE thread_id = $1 AND message_id_header IS NOT NULL ORDER BY seq`,
    [t.id],
  );
  const ids = earlier.map((r) => r.message_id_header);
  const headers: Record<string, string> = ids.length ? { 'In-Reply-To': ids[ids.length - 1], References: ids.slice(-20).join(' ') } : {};
  const subject = /^re:/i.test(t.subject) ? t.subject : `Re: ${t.subject}`;
  const sent = await sendEmail(
    ctx,
    {
      to: t.customer_email,
      subject,
      text: input.text,
      ...(input.html ? { html: input.html } : {}),
      ...(config.inbound_domain ? { reply_to: threadAddress(t.id, t.reply_token, config.inbound_domain) } : {}),
    },
    { config, headers, threadId: t.id },
  );
  const messageId = await messageIdHeader(ctx.db, sent.id);
  const now = ctx.clock.now();
  await ctx.db.query(
    `INSERT INTO email_thread_messages (id, store_id, thread_id, direction, message_id_header, from_address, subject, text, html, email_message_id, created_at)
     VALUES (gen_random_uuid(), $1, $2, 'outbound', $3, $4, $5, $6, $7, $8, $9)`,
    [ctx.store.id, t.id, messageId, sent.from, subject, input.text, input.html ?? null, sent.id, now],
  );
  await ctx.db.query(`UPDATE email_threads SET message_count = message_count + 1, last_message_at = $2, updated_at = $2 WHERE id = $1`, [t.id, now]);
  return sent;
}

/** A new thread (inbound mail that continues none): used by inbound.ts and the sweeps' example. */
export async function createThread(db: Db, storeId: string, t: { subject: string; customerEmail: string; customerId?: string }, at: Date) {
  const [row] = await db.query(
    `INSERT INTO email_threads (id, store_id, subject, customer_id, customer_email, status, message_count, last_message_at, reply_token, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, 'open', 0, $5, $6, $5, $5) RETURNING *`,
    [storeId, t.subject, t.customerId ?? null, t.customerEmail, at, randomBytes(8).toString('hex')],
  );
  return row;
}
