import type { Static } from '@sinclair/typebox';
import { errors, fail, iso, listPage, lockKey, parseInstant, PLAN_LIMITS, rowOr404, stamps, type Ctx, type Db, type Row } from '../../core/sdk';
import { checkAddress } from '../email/public';
import { segmentsIn } from '../segments/public';
import type { CampaignCreate, CampaignQuery } from './schemas';

export const DEFAULT_RATE = 600;
export const DEFAULT_WINDOW_DAYS = 5;

type Counts = { total: number; pending: number; sent: number; skipped: number };
const NONE: Counts = { total: 0, pending: 0, sent: 0, skipped: 0 };

const toCampaign = (r: Row, recipients: Counts = NONE) => ({
  object: 'campaign' as const,
  id: r.id,
  name: r.name,
  segment_id: r.segment_id,
  template_id: r.template_id,
  from: r.from_address ?? null,
  status: r.status,
  send_at: iso(r.send_at),
  send_rate_per_minute: r.send_rate_per_minute,
  conversion_window_days: r.conversion_window_days,
  recipients,
  last_error: r.last_error ?? null,
  started_at: r.started_at ? iso(r.started_at) : null,
  finished_at: r.finished_at ? iso(r.finished_at) : null,
  ...stamps(r),
});

/** The recipients of these campaigns by status, in one query. */
async function countsOf(db: Db, storeId: string, ids: string[]): Promise<Map<string, Counts>> {
  const out = new Map<string, Counts>();
  if (!ids.length) return out;
  const rows = await db.query<{ campaign_id: string; status: keyof Counts; n: number }>(
    `SELECT campaign_id, status, count(*)::int AS n FROM campaign_recipients WHERE store_id = $1 AND campaign_id = ANY($2::uuid[]) GROUP BY 1, 2`,
    [storeId, ids],
  );
  for (const r of rows) {
    const c = out.get(r.campaign_id) ?? { ...NONE };
    c[r.status] = Number(r.n);
    c.total += Number(r.n);
    out.set(r.campaign_id, c);
  }
  return out;
}

const withCounts = async (db: Db, storeId: string, rows: Row[]) => {
  const counts = await countsOf(
    db,
    storeId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toCampaign(r, counts.get(r.id)));
};

export const campaignRow = (ctx: Ctx, id: string) => rowOr404(ctx.db, { table: 'campaigns', storeId: ctx.store.id, id, noun: 'campaign' });

/**
 * A campaign's sending lock (a transaction advisory lock, lockKey's key): each send holds it
 * shared; pause, resume and cancel take it exclusive, so they wait for the sends in flight and no
 * send starts until they commit. An advisory lock queues fairly: a row lock FOR UPDATE could wait
 * forever behind runs that keep taking it FOR SHARE one after another.
 */
export async function sendingLock(db: Db, storeId: string, id: string) {
  const h = new Bun.CryptoHasher('sha256').update(`${storeId}\0campaign:${id}`).digest();
  await db.query('SELECT pg_advisory_xact_lock_shared($1::int, $2::int)', [h.readInt32BE(0), h.readInt32BE(4)]);
}

/** The campaign, held until the change commits: no send is in flight, and none starts meanwhile. */
async function lockedRow(ctx: Ctx, id: string) {
  await campaignRow(ctx, id); // 404 first, before a lock is taken for an id of no campaign
  await lockKey(ctx.db, ctx.store.id, `campaign:${id.toLowerCase()}`);
  return rowOr404(ctx.db, { table: 'campaigns', storeId: ctx.store.id, id, noun: 'campaign', lock: 'FOR UPDATE' });
}

export const getCampaign = async (ctx: Ctx, id: string) => (await withCounts(ctx.db, ctx.store.id, [await campaignRow(ctx, id)]))[0];

export const listCampaigns = (ctx: Ctx, input: Static<typeof CampaignQuery>) =>
  listPage(ctx, { table: 'campaigns', path: '/campaigns', input, filters: { 'status = $': input.status } }, (rows) =>
    withCounts(ctx.db, ctx.store.id, rows),
  );

/** The plan's hourly email limit caps a minute's rate (null: no limit). */
function rateOf(ctx: Ctx, asked: number | undefined): number {
  const hourly = PLAN_LIMITS[ctx.store.plan]?.emails_per_hour ?? null;
  if (asked === undefined) return hourly === null ? DEFAULT_RATE : Math.min(DEFAULT_RATE, hourly);
  if (hourly !== null && asked > hourly)
    throw errors.validation(
      `Invalid send_rate_per_minute: the ${ctx.store.plan} plan sends at most ${hourly} emails an hour, so at most ${hourly} a minute.`,
      'send_rate_per_minute',
    );
  return asked;
}

export async function createCampaign(ctx: Ctx, input: Static<typeof CampaignCreate>) {
  const now = ctx.clock.now();
  if (input.send_now && input.send_at) throw errors.validation('Give send_at or send_now: true, not both.', 'send_at');
  if (!input.send_now && !input.send_at) throw errors.validation('Give send_at (a future date-time) or send_now: true.', 'send_at');
  let sendAt = now;
  if (input.send_at) {
    sendAt = parseInstant(input.send_at, 'send_at');
    if (sendAt.getTime() <= now.getTime()) throw errors.validation('Invalid send_at: must be in the future (or give send_now: true).', 'send_at');
  }
  const from = input.from ? checkAddress(input.from, 'from') : null;
  const rate = rateOf(ctx, input.send_rate_per_minute);
  if (!(await segmentsIn(ctx.db, ctx.store.id, [input.segment_id])).size) throw errors.notFound(`segment: '${input.segment_id}'`, 'segment_id');
  // Runs as campaigns (it requires email); a 404 names template_id.
  const template = await ctx.call('email.get_template', { id: input.template_id }, { notFoundParam: 'template_id' });
  if (template.category !== 'marketing')
    throw errors.validation(
      'Invalid template_id: a campaign sends a marketing template (category marketing, with {{unsubscribe_url}}).',
      'template_id',
    );
  const [row] = await ctx.db.query(
    `INSERT INTO campaigns (id, store_id, name, segment_id, template_id, from_address, status, send_at, send_rate_per_minute,
       conversion_window_days, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 'scheduled', $6, $7, $8, $9, $9) RETURNING *`,
    [ctx.store.id, input.name, input.segment_id, input.template_id, from, sendAt, rate, input.conversion_window_days ?? DEFAULT_WINDOW_DAYS, now],
  );
  // The send is a job, in this transaction: it exists exactly when the campaign does.
  await ctx.enqueue('send', { campaign_id: row.id }, input.send_now ? {} : { startAfter: sendAt });
  return toCampaign(row);
}

const finished = (r: Row) => fail('campaign_finished', `This campaign is already ${r.status}: it cannot change any more.`, 'id');

/** Stops the remaining sends at once: the sends in flight commit first (sendingLock), then none starts. */
export async function pause(ctx: Ctx, id: string) {
  const r = await lockedRow(ctx, id);
  if (r.status === 'sent' || r.status === 'cancelled') throw finished(r);
  if (r.status !== 'paused') await setStatus(ctx.db, r.id, 'paused', ctx.clock.now());
  return getCampaign(ctx, id);
}

/** Sending goes on where it stopped: members already mailed are never mailed again (send.ts). */
export async function resume(ctx: Ctx, id: string) {
  const r = await lockedRow(ctx, id);
  if (r.status === 'sent' || r.status === 'cancelled') throw finished(r);
  if (r.status !== 'paused') throw fail('campaign_not_paused', `This campaign is ${r.status}, not paused.`, 'id');
  const now = ctx.clock.now();
  // Not started yet: scheduled again (its run takes the audience when due); else sending goes on.
  const later = new Date(r.send_at).getTime() > now.getTime();
  await ctx.db.query(`UPDATE campaigns SET status = $2, last_error = NULL, updated_at = $3 WHERE id = $1`, [
    r.id,
    r.started_at ? 'sending' : 'scheduled',
    now,
  ]);
  await ctx.enqueue('send', { campaign_id: r.id }, !r.started_at && later ? { startAfter: new Date(r.send_at) } : {});
  return getCampaign(ctx, id);
}

export async function cancel(ctx: Ctx, id: string) {
  const r = await lockedRow(ctx, id);
  if (r.status === 'sent' || r.status === 'cancelled') throw finished(r);
  const now = ctx.clock.now();
  await ctx.db.query(`UPDATE campaigns SET status = 'cancelled', finished_at = $2, updated_at = $2 WHERE id = $1`, [r.id, now]);
  return getCampaign(ctx, id);
}

export const setStatus = (db: Db, id: string, status: string, now: Date) =>
  db.query(`UPDATE campaigns SET status = $2, updated_at = $3 WHERE id = $1`, [id, status, now]);
