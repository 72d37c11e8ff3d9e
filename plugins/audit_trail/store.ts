import type { Static } from '@sinclair/typebox';
import { iso, listPage, parseInstant, rowOr404, type Ctx, type Db, type Row } from '../../core/sdk';
import { storeSettings } from '../store/public';
import type { AuditQuery, ExportQuery } from './schemas';

export const toEvent = (r: Row) => ({
  object: 'audit_event' as const,
  id: r.id,
  type: r.type,
  actor: { type: r.actor_type, id: r.actor_id ?? null, name: r.actor_name ?? null },
  resource: { type: r.resource_type ?? null, id: r.resource_id ?? null },
  data: r.data,
  request_id: r.request_id ?? null,
  created_at: iso(r.created_at),
});

type Filters = Omit<Static<typeof ExportQuery>, 'format'>;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The filters as listPage conditions. `from`/`to` dates are whole days of the store's time zone
 * (`to` inclusive: before the next day's start); date-times are exact instants.
 */
async function conditions(ctx: Ctx, f: Filters): Promise<Record<string, unknown>> {
  let tz: string | undefined;
  const bound = async (text: string, param: 'from' | 'to') => {
    const at = parseInstant(text, param); // checks the shape and the calendar, 400 naming param
    if (!DATE.test(text)) return at;
    tz ??= (await storeSettings(ctx.db, ctx.store.id)).timezone;
    const [r] = await ctx.db.query(`SELECT (($1::date + $3::int)::timestamp AT TIME ZONE $2) AS t`, [text, tz, param === 'to' ? 1 : 0]);
    return new Date(r.t);
  };
  const types = f.type
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return {
    'type = ANY($::text[])': types?.length ? types : undefined,
    'actor_id = $': f.actor_id,
    'resource_id = $': f.resource_id,
    'resource_type = $': f.resource_type,
    'created_at >= $': f.from ? await bound(f.from, 'from') : undefined,
    [f.to && DATE.test(f.to) ? 'created_at < $' : 'created_at <= $']: f.to ? await bound(f.to, 'to') : undefined,
  };
}

export const listEvents = async (ctx: Ctx, input: Static<typeof AuditQuery>) =>
  listPage(ctx, { table: 'audit_events', path: '/audit-events', input, filters: await conditions(ctx, input) }, (rows) => rows.map(toEvent));

export const getEvent = async (ctx: Ctx, id: string) =>
  toEvent(await rowOr404(ctx.db, { table: 'audit_events', storeId: ctx.store.id, id, noun: 'audit event' }));

const COLUMNS = ['id', 'type', 'actor_type', 'actor_id', 'actor_name', 'resource_type', 'resource_id', 'request_id', 'created_at', 'data'];
const csvCell = (v: unknown) => {
  const s = v == null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Quoted always; a leading = + - @ is prefixed so a spreadsheet never runs it as a formula.
  return `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replaceAll('"', '""')}"`;
};
const BATCH = 500;

/**
 * The matching events oldest first, streamed: one page of BATCH rows is read when the client
 * wants more (keyset on seq), so memory holds one page whatever the size of the trail.
 */
export async function exportEvents(ctx: Ctx, input: Static<typeof ExportQuery>) {
  const format = input.format ?? 'csv';
  const filters = await conditions(ctx, input);
  const where = ['store_id = $1'];
  const params: unknown[] = [ctx.store.id];
  for (const [cond, v] of Object.entries(filters)) {
    if (v === undefined) continue;
    params.push(v);
    where.push(cond.replace('$', `$${params.length}`));
  }
  const db: Db = ctx.db;
  let after = 0n;
  let first = true;
  const enc = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let out = '';
      if (first && format === 'csv') out += `${COLUMNS.join(',')}\n`;
      first = false;
      const rows = await db.query(
        `SELECT * FROM audit_events WHERE ${where.join(' AND ')} AND seq > $${params.length + 1} ORDER BY seq LIMIT ${BATCH}`,
        [...params, after.toString()],
      );
      for (const r of rows) {
        const e = toEvent(r);
        out +=
          format === 'csv'
            ? `${[e.id, e.type, e.actor.type, e.actor.id, e.actor.name, e.resource.type, e.resource.id, e.request_id, e.created_at, e.data].map(csvCell).join(',')}\n`
            : `${JSON.stringify(e)}\n`;
      }
      if (rows.length) after = BigInt(rows[rows.length - 1].seq);
      if (out) controller.enqueue(enc.encode(out));
      if (rows.length < BATCH) controller.close();
    },
  });
  const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson';
  return new Response(stream, {
    headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename="audit-events.${format === 'csv' ? 'csv' : 'jsonl'}"` },
  });
}

/** Deletes events older than the retention (0 keeps all): the daily cron job, over every store. */
export async function prune(db: Db, now: Date, days: number) {
  if (days <= 0) return { deleted: 0 };
  const rows = await db.query('DELETE FROM audit_events WHERE created_at < $1 RETURNING 1', [new Date(now.getTime() - days * 86_400_000)]);
  return { deleted: rows.length };
}
