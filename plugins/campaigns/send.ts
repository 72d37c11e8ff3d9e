import type { Static } from '@sinclair/typebox';
import { SvcError, type Db, type JobCtx, type Row } from '../../core/sdk';
import { sendingLock } from './store';
import { emailSettings, sendEmail, suppressedAmong } from '../email/public';
import { membersSource } from '../segments/public';
import type { SendJob } from './schemas';

/**
 * Sending a campaign, as the job `campaigns.send`.
 *
 * - The audience is taken once, when sending starts: the segment's members go into
 *   campaign_recipients in one INSERT ... SELECT, keyed (campaign, customer), together with the
 *   status change from scheduled to sending. Members without an address or without marketing
 *   consent are recorded as skipped.
 * - Each message is one transaction: the campaign's sending lock taken shared (sendingLock) and its
 *   status read (still sending?), the next
 *   pending recipient FOR UPDATE SKIP LOCKED, the message through email's pipeline (limits,
 *   suppression, unsubscribe link, delivery job), the recipient marked sent. A retried job, a
 *   second run after resume, or two workers at once therefore never mail anyone twice, and
 *   `pause` (the lock taken exclusive) waits for the sends in flight, after which none starts.
 * - Throttling: a run sends at most `send_rate_per_minute` messages, then queues the next run a
 *   minute after it began. A full hour (email's plan limit) queues it after the Retry-After.
 */

type Step = 'sent' | 'skipped' | 'done' | 'stopped' | { retryAfter: number } | { error: { code: string; message: string } };

export async function runSend(ctx: JobCtx, { campaign_id }: Static<typeof SendJob>) {
  const began = ctx.clock.now();
  const [c] = await ctx.db.query('SELECT * FROM campaigns WHERE store_id = $1 AND id = $2', [ctx.store.id, campaign_id]);
  if (!c) return { sent: 0 };
  if (c.status === 'scheduled') {
    // Early (a resume queued its own run for send_at): that run starts it.
    if (new Date(c.send_at).getTime() > began.getTime()) return { sent: 0 };
    const error = await start(ctx, c, began);
    if (error) {
      await stopWith(ctx.db, c.id, error, began, 'scheduled');
      return { sent: 0 };
    }
  } else if (c.status !== 'sending') return { sent: 0 };

  let sent = 0;
  while (sent < c.send_rate_per_minute) {
    const step = await sendOne(ctx, c);
    if (step === 'sent') sent++;
    else if (step === 'skipped') continue;
    else if (step === 'stopped') return { sent };
    else if (step === 'done') {
      await finish(ctx.db, c.id, ctx.clock.now());
      return { sent };
    } else if ('retryAfter' in step) {
      await ctx.enqueue('send', { campaign_id }, { startAfter: new Date(ctx.clock.now().getTime() + step.retryAfter * 1000) });
      return { sent };
    } else {
      await stopWith(ctx.db, c.id, step.error, ctx.clock.now(), 'sending');
      return { sent };
    }
  }
  // The minute's budget is spent: the next run goes on where this one stopped.
  await ctx.enqueue('send', { campaign_id }, { startAfter: new Date(began.getTime() + 60_000) });
  return { sent };
}

/** scheduled -> sending and the audience, in one statement; undefined when started (or by another run). */
async function start(ctx: JobCtx, c: Row, now: Date): Promise<{ code: string; message: string } | undefined> {
  const members = await membersSource(ctx.db, ctx.store.id, c.segment_id, { now, store: '$1', firstParam: 4 });
  if (!members) return { code: 'resource_missing', message: `No such segment: '${c.segment_id}'.` };
  await ctx.db.query(
    `WITH started AS (
       UPDATE campaigns SET status = 'sending', started_at = $3, updated_at = $3 WHERE store_id = $1 AND id = $2 AND status = 'scheduled' RETURNING id
     )
     INSERT INTO campaign_recipients (campaign_id, customer_id, store_id, email, first_name, last_name, status, reason)
     SELECT $2::uuid, m.id, $1::uuid, lower(m.email), m.first_name, m.last_name,
       CASE WHEN coalesce(m.email, '') = '' OR NOT m.accepts_marketing THEN 'skipped' ELSE 'pending' END,
       CASE WHEN coalesce(m.email, '') = '' THEN 'no_email' WHEN NOT m.accepts_marketing THEN 'not_accepting_marketing' END
     FROM ${members.sql} m WHERE EXISTS (SELECT 1 FROM started)
     ORDER BY m.seq
     ON CONFLICT DO NOTHING`,
    [ctx.store.id, c.id, now, ...members.params],
  );
  return undefined;
}

async function sendOne(ctx: JobCtx, c: Row): Promise<Step> {
  try {
    return await ctx.db.transaction(async (tx): Promise<Step> => {
      await sendingLock(tx, ctx.store.id, c.id);
      const [live] = await tx.query<{ status: string }>('SELECT status FROM campaigns WHERE id = $1', [c.id]);
      if (live?.status !== 'sending') return 'stopped';
      const [r] = await tx.query(
        `SELECT * FROM campaign_recipients WHERE campaign_id = $1 AND status = 'pending' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [c.id],
      );
      if (!r) return 'done';
      const mark = (status: string, reason: string | null, messageId: string | null) =>
        tx.query(
          `UPDATE campaign_recipients SET status = $3, reason = $4, message_id = $5, sent_at = $6 WHERE campaign_id = $1 AND customer_id = $2`,
          [c.id, r.customer_id, status, reason, messageId, messageId ? ctx.clock.now() : null],
        );
      // Suppressed (bounced, complained, unsubscribed) addresses are skipped before a message is made.
      if ((await suppressedAmong(tx, ctx.store.id, [r.email])).size) {
        await mark('skipped', 'suppressed', null);
        return 'skipped';
      }
      const name = [r.first_name, r.last_name].filter(Boolean).join(' ');
      const m = await sendEmail(
        { ...ctx, db: tx },
        {
          to: r.email,
          template_id: c.template_id,
          category: 'marketing',
          ...(c.from_address ? { from: c.from_address } : {}),
          variables: {
            customer: { first_name: r.first_name, last_name: r.last_name, email: r.email, name: name || r.email },
            campaign: { name: c.name },
          },
          tags: [`campaign:${c.id}`],
        },
        { config: emailSettings(ctx.registry) },
      );
      await mark(m.status === 'suppressed' ? 'skipped' : 'sent', m.status === 'suppressed' ? 'suppressed' : null, m.id);
      return m.status === 'suppressed' ? 'skipped' : 'sent';
    });
  } catch (err) {
    if (err instanceof SvcError && err.code === 'rate_limit_exceeded') return { retryAfter: Math.max(1, Number(err.headers['Retry-After']) || 60) };
    // A missing setting, an unverified sender, a deleted template: no retry heals it, so sending pauses and says why.
    if (err instanceof SvcError && err.status < 500) return { error: { code: err.code, message: err.message } };
    throw err;
  }
}

/** Sent once nothing is pending (a recipient another run still holds is pending to this statement). */
const finish = (db: Db, id: string, now: Date) =>
  db.query(
    `UPDATE campaigns SET status = 'sent', finished_at = $2, updated_at = $2
     WHERE id = $1 AND status = 'sending' AND NOT EXISTS (SELECT 1 FROM campaign_recipients WHERE campaign_id = $1 AND status = 'pending')`,
    [id, now],
  );

const stopWith = (db: Db, id: string, error: { code: string; message: string }, now: Date, from: string) =>
  db.query(`UPDATE campaigns SET status = 'paused', last_error = $2::text::jsonb, updated_at = $3 WHERE id = $1 AND status = $4`, [
    id,
    JSON.stringify(error),
    now,
    from,
  ]);
