import type { Static } from '@sinclair/typebox';
import { errors, iso, isoOrNull, listPage, type Ctx, type Db, type Row } from '../../core/sdk';
import { bodyForVersion, deliveryJob, enqueue, TEST_EVENT, WEBHOOK_QUEUE, writeEvents } from '../../core/platform';
import { endpointRow, toEndpoint } from './store';
import type { Delivery, DeliveryQuery } from './schemas';

const int = (n: unknown) => (n == null ? null : Number(n));

function toDelivery(r: Row, attempts: Row[], requestBody: string | null): Static<typeof Delivery> {
  return {
    object: 'webhook_delivery',
    id: r.id,
    endpoint_id: r.endpoint_id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    attempt: Number(r.attempts),
    status_code: int(r.last_status_code),
    duration_ms: int(r.last_duration_ms),
    response: r.last_response,
    error: r.last_error,
    next_retry_at: isoOrNull(r.next_retry_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    request_body: requestBody,
    attempts: attempts.map((a) => ({
      object: 'webhook_delivery_attempt' as const,
      attempt: Number(a.attempt),
      succeeded: a.succeeded,
      status_code: int(a.status_code),
      duration_ms: Number(a.duration_ms),
      response: a.response,
      error: a.error,
      created_at: iso(a.created_at),
    })),
  };
}

/**
 * Deliveries with their attempt log, oldest attempt first, and the body every attempt sends: the
 * stored event rendered for the endpoint's api_version, as the worker renders it.
 */
async function withAttempts(db: Db, endpoint: Row, rows: Row[]) {
  if (!rows.length) return [];
  const attempts = await db.query('SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, attempt', [
    rows.map((r) => r.id),
  ]);
  const events = await db.query<{ id: string; body: string }>('SELECT id, body FROM events WHERE store_id = $1 AND id = ANY($2::text[])', [
    endpoint.store_id,
    [...new Set(rows.map((r) => r.event_id))],
  ]);
  const bodies = new Map(events.map((e) => [e.id, bodyForVersion(e.body, endpoint.api_version)]));
  return rows.map((r) =>
    toDelivery(
      r,
      attempts.filter((a) => a.delivery_id === r.id),
      bodies.get(r.event_id) ?? null,
    ),
  );
}

async function deliveryRow(ctx: Ctx, endpointId: string, deliveryId: string, forUpdate = false) {
  const [row] = await ctx.db.query(
    `SELECT * FROM webhook_deliveries WHERE store_id = $1 AND endpoint_id = $2 AND id = $3${forUpdate ? ' FOR UPDATE' : ''}`,
    [ctx.store.id, endpointId, deliveryId],
  );
  if (!row) throw errors.notFound(`webhook delivery: '${deliveryId}'`, 'delivery_id');
  return row;
}

/** Sending to a disabled endpoint would only fail again: re-enable it first. */
function requireActive(endpoint: Row) {
  if (!endpoint.is_active)
    throw errors.conflict(
      `This webhook endpoint is disabled${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}; re-enable it with PATCH is_active: true first.`,
      'conflict_error',
      'id',
    );
}

export async function listDeliveries(ctx: Ctx, input: Static<typeof DeliveryQuery>) {
  const endpoint = await endpointRow(ctx, input.id);
  return listPage(
    ctx,
    {
      table: 'webhook_deliveries',
      path: `/webhooks/${input.id}/deliveries`,
      input,
      filters: { 'endpoint_id = $': input.id, 'status = $': input.status || undefined },
    },
    (rows) => withAttempts(ctx.db, endpoint, rows),
  );
}

/** The test ping (SPEC 6.1 rule 6): a `webhook.test` event queued to this endpoint only. */
export async function sendTest(ctx: Ctx, id: string) {
  const endpoint = await endpointRow(ctx, id, true);
  requireActive(endpoint);
  const [deliveryId] = await writeEvents(
    ctx.db,
    ctx.store.id,
    [{ type: TEST_EVENT, data: toEndpoint(endpoint, ctx.clock.now()), at: ctx.clock.now() }],
    {
      endpointId: endpoint.id,
    },
  );
  return (await withAttempts(ctx.db, endpoint, [await deliveryRow(ctx, id, deliveryId)]))[0];
}

/**
 * Sends a delivery again now, whatever its state, with a fresh retry schedule. Refused while an
 * attempt is in flight, so two attempts never race on one delivery.
 */
export async function resendDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  const endpoint = await endpointRow(ctx, endpointId, true);
  requireActive(endpoint);
  const cur = await deliveryRow(ctx, endpointId, deliveryId, true);
  const now = ctx.clock.now();
  if (cur.lease_until && new Date(cur.lease_until) > now)
    throw errors.conflict('An attempt of this delivery is in progress; try again in a moment.', 'conflict_error', 'delivery_id');
  const [row] = await ctx.db.query(
    `UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_retry_at = NULL, updated_at = $2
     WHERE id = $1 RETURNING *`,
    [cur.id, now],
  );
  // The job names the current attempt count, so a retry still queued for the old schedule is void.
  await enqueue(ctx.db, WEBHOOK_QUEUE, [deliveryJob(row.id, Number(row.attempts))]);
  return (await withAttempts(ctx.db, endpoint, [row]))[0];
}

/** Resends every failed delivery of the endpoint (e.g. after fixing and re-enabling it). */
export async function replayFailed(ctx: Ctx, endpointId: string) {
  requireActive(await endpointRow(ctx, endpointId, true));
  const rows = await ctx.db.query<{ id: string; attempts: number }>(
    `UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_retry_at = NULL, updated_at = $3
     WHERE store_id = $1 AND endpoint_id = $2 AND status = 'failed' RETURNING id, attempts`,
    [ctx.store.id, endpointId, ctx.clock.now()],
  );
  await enqueue(
    ctx.db,
    WEBHOOK_QUEUE,
    rows.map((r) => deliveryJob(r.id, Number(r.attempts))),
  );
  return { object: 'webhook_replay' as const, endpoint_id: endpointId, replayed: rows.length };
}
