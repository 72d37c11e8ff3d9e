import type { Static } from '@sinclair/typebox';
import { emitEvents, iso, jsonParam, listPage, rowOr404, stamps, type Ctx, type Db, type EventTypes, type Row } from '../../core/sdk';
import { SMTP_MISSING } from './config';
import type { MessageQuery } from './schemas';

// Declared in config.ts (index.ts prints it at start); kept here for this module's users.
export { SMTP_MISSING };

export const toMessage = (r: Row, opts: { smtpConfigured?: boolean } = {}) => ({
  object: 'email_message' as const,
  id: r.id,
  to: r.to_addresses as string[],
  from: r.from_address,
  reply_to: r.reply_to ?? null,
  subject: r.subject,
  status: r.status,
  category: r.category,
  template_id: r.template_id ?? null,
  template_version: r.template_version ?? null,
  tags: r.tags ?? [],
  smtp_response: r.smtp_response ?? null,
  ...(r.status === 'queued' && opts.smtpConfigured === false ? { warning: SMTP_MISSING } : {}),
  ...stamps(r),
});

export const messageRow = (ctx: Ctx, id: string) => rowOr404(ctx.db, { table: 'email_messages', storeId: ctx.store.id, id, noun: 'email message' });

export const getMessage = async (ctx: Ctx, id: string) => toMessage(await messageRow(ctx, id), { smtpConfigured: !!ctx.config.smtp_url });

export const listMessages = (ctx: Ctx, input: Static<typeof MessageQuery>) =>
  listPage(
    ctx,
    {
      table: 'email_messages',
      path: '/email/messages',
      input,
      filters: {
        'status = $': input.status,
        'tags @> $::text::jsonb': input.tag === undefined ? undefined : jsonParam([input.tag]),
        'to_addresses @> $::text::jsonb': input.to === undefined ? undefined : jsonParam([input.to.toLowerCase()]),
      },
    },
    (rows) => rows.map((r) => toMessage(r, { smtpConfigured: !!ctx.config.smtp_url })),
  );

export const EVENT_TYPES = ['delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'] as const;
export type EmailEvent = (typeof EVENT_TYPES)[number];

/**
 * Records a message event (SPEC 2.10) and its event `email.<event>` (stored when the store
 * subscribes or a plugin reacts to it: `registry` is ctx.registry, or a job's or start's), in `tx`.
 */
export async function addEvent(tx: Db, m: Row, event: EmailEvent, details: Record<string, unknown>, at: Date, registry: EventTypes) {
  await tx.query(
    `INSERT INTO email_events (id, store_id, message_id, event, details, machine, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4::text::jsonb, $5, $6)`,
    [m.store_id, m.id, event, JSON.stringify(details), details.machine === true, at],
  );
  // Machine opens are kept as events but are no person's open: they do not count in stats.
  if (details.machine !== true) await countFirst(tx, m.store_id, m.id, event, at);
  await emitEvents(tx, registry, m.store_id, [
    { type: `email.${event}`, at, data: { object: 'email_event', id: m.id, message_id: m.id, event, details, timestamp: iso(at) } },
  ]);
}

/** A message the relay accepted, with its answer. */
export interface Delivered {
  m: Row;
  response: string;
}

/**
 * Relays' 250s for a batch of messages: the statuses, the `delivered` events and their daily
 * counts in one statement (a message leaves `sending` once, so it counts once without a firsts
 * row), then the webhook events of the stores that subscribe (as addEvent per message, in one
 * round trip for the batch). The daily count rows are taken in store order, so two workers'
 * batches cannot deadlock on them.
 */
export async function markDelivered(tx: Db, delivered: Delivered[], at: Date, registry: EventTypes) {
  if (!delivered.length) return;
  await tx.query(
    `WITH d AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS d(id uuid, store_id uuid, response text)
     ), upd AS (
       UPDATE email_messages m SET status = 'delivered', smtp_response = d.response, sent_at = $2, updated_at = $2
       FROM d WHERE m.id = d.id AND m.status = 'sending' RETURNING m.id, m.store_id
     ), ev AS (
       INSERT INTO email_events (id, store_id, message_id, event, details, machine, created_at)
       SELECT gen_random_uuid(), d.store_id, d.id, 'delivered', jsonb_build_object('smtp_response', d.response), false, $2 FROM d JOIN upd USING (id)
     )
     INSERT INTO email_daily_stats (store_id, day, event, shard, messages)
     SELECT store_id, ($2::timestamptz AT TIME ZONE 'UTC')::date, 'delivered', $3, count(*) FROM upd GROUP BY store_id ORDER BY store_id
     ON CONFLICT (store_id, day, event, shard) DO UPDATE SET messages = email_daily_stats.messages + EXCLUDED.messages`,
    [JSON.stringify(delivered.map(({ m, response }) => ({ id: m.id, store_id: m.store_id, response }))), at, Math.floor(Math.random() * 16)],
  );
  const byStore = new Map<string, Parameters<typeof emitEvents>[3]>();
  for (const { m, response } of delivered) {
    const details = { smtp_response: response };
    const events = byStore.get(m.store_id) ?? [];
    events.push({
      type: 'email.delivered',
      at,
      data: { object: 'email_event', id: m.id, message_id: m.id, event: 'delivered', details, timestamp: iso(at) },
    });
    byStore.set(m.store_id, events);
  }
  for (const [storeId, events] of byStore) await emitEvents(tx, registry, storeId, events);
}

export async function listEvents(ctx: Ctx, id: string) {
  await messageRow(ctx, id);
  const rows = await ctx.db.query('SELECT event, details, created_at FROM email_events WHERE store_id = $1 AND message_id = $2 ORDER BY seq', [
    ctx.store.id,
    id,
  ]);
  return {
    object: 'list' as const,
    data: rows.map((r) => ({ object: 'email_event' as const, event: r.event, timestamp: iso(r.created_at), details: r.details })),
    has_more: false,
    url: `${ctx.storePath}/email/messages/${id}/events`,
  };
}

/** Adds addresses to the store's suppression list (kept once, first reason wins). */
export async function suppress(tx: Db, storeId: string, addresses: string[], reason: string, at: Date) {
  for (const a of addresses) {
    await tx.query(`INSERT INTO email_suppressions (store_id, address, reason, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [
      storeId,
      a.toLowerCase(),
      reason,
      at,
    ]);
  }
}

/** Counts a message's first event of a kind in its UTC day (stats.ts reads the sums). */
export async function countFirst(tx: Db, storeId: string, messageId: string, event: string, at: Date) {
  await tx.query(
    `WITH first AS (
       INSERT INTO email_event_firsts (message_id, event, store_id) VALUES ($2, $3, $1) ON CONFLICT DO NOTHING RETURNING 1
     )
     INSERT INTO email_daily_stats (store_id, day, event, shard, messages)
     SELECT $1, ($4::timestamptz AT TIME ZONE 'UTC')::date, $3, $5, 1 FROM first
     ON CONFLICT (store_id, day, event, shard) DO UPDATE SET messages = email_daily_stats.messages + 1`,
    [storeId, messageId, event, at, Math.floor(Math.random() * 16)],
  );
}
