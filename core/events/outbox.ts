import type { JobInsert } from 'pg-boss';
import type { Db } from '../db/types';
import { enqueue } from '../jobs/send';
import { subscribedTypes } from './subscriptions';
import { eventCause } from './cause';
import { ALL_EVENTS, eventBody, newEventId, type PendingEvent } from './types';

/** The pg-boss queue of webhook deliveries (worker: workers/webhooks.ts). */
export const WEBHOOK_QUEUE = 'core.webhooks';

/** One job is one attempt: `attempt` is the number of attempts made before it, so a stale job is a no-op. */
export interface DeliveryJob {
  delivery_id: string;
  attempt: number;
}

export const deliveryJob = (deliveryId: string, attempt: number, delaySeconds?: number): JobInsert<DeliveryJob> => ({
  data: { delivery_id: deliveryId, attempt },
  // Seconds from the database's now (pg-boss's own time), so the schedule holds whatever the
  // process clock says; next_retry_at records the same moment in svc's clock.
  ...(delaySeconds ? { startAfter: delaySeconds } : {}),
});

/**
 * Writes events and fans each out, in the caller's transaction, to one delivery per active
 * endpoint subscribed to its type or to `*` (or to `endpointId` alone: the test ping), with one job each.
 * Returns the deliveries' ids. Runs before the commit: a rolled-back change leaves nothing behind.
 */
export async function writeEvents(
  tx: Db,
  storeId: string,
  events: PendingEvent[],
  opts: { endpointId?: string; reactions?: ReadonlyMap<string, readonly string[]> } = {},
): Promise<string[]> {
  if (!events.length) return [];
  const cause = eventCause() ?? null;
  const rows = events.map((e) => {
    const id = newEventId();
    return { id, type: e.type, body: eventBody(id, e.type, e.at, e.data), created_at: e.at.toISOString(), cause, origin: e.origin ?? null };
  });
  const match = opts.endpointId ? 'e.id = $3' : `e.is_active AND (ev.type = ANY(e.events) OR '${ALL_EVENTS}' = ANY(e.events))`;
  // One statement for all of it: the events, and the deliveries joined from the endpoints as the
  // transaction sees them (never from the per-process subscription cache).
  const deliveries = await tx.query<{ id: string }>(
    `WITH ev AS (
       INSERT INTO events (id, store_id, type, body, created_at, cause, origin)
       SELECT x.id, $1, x.type, x.body, x.created_at, x.cause, x.origin
       FROM jsonb_to_recordset($2::text::jsonb) AS x(id text, type text, body text, created_at timestamptz, cause jsonb, origin jsonb)
       RETURNING id, type, created_at
     )
     INSERT INTO webhook_deliveries (id, store_id, endpoint_id, event_id, event_type, status, created_at, updated_at)
     SELECT gen_random_uuid(), $1, e.id, ev.id, ev.type, 'pending', ev.created_at, ev.created_at
     FROM ev JOIN webhook_endpoints e ON e.store_id = $1 AND ${match}
     RETURNING id`,
    opts.endpointId ? [storeId, JSON.stringify(rows), opts.endpointId] : [storeId, JSON.stringify(rows)],
  );
  await enqueue(
    tx,
    WEBHOOK_QUEUE,
    deliveries.map((d) => deliveryJob(d.id, 0)),
  );
  if (opts.reactions) await queueReactions(tx, storeId, rows, await withStoreSubscriptions(tx, storeId, rows, opts.reactions));
  return deliveries.map((d) => d.id);
}

/**
 * The declared reactions plus the store's run-time subscriptions (event_subscriptions) to these
 * events' types. One indexed read, only when events are written at all.
 */
async function withStoreSubscriptions(
  tx: Db,
  storeId: string,
  events: { type: string }[],
  reactions: ReadonlyMap<string, readonly string[]>,
): Promise<ReadonlyMap<string, readonly string[]>> {
  const subs = await tx.query<{ type: string; plugin: string }>(
    // MCP resource subscriptions (core/mcp/resources.ts) only keep events; no reaction serves them.
    "SELECT type, plugin FROM event_subscriptions WHERE store_id = $1 AND type = ANY($2::text[]) AND plugin <> 'mcp'",
    [storeId, [...new Set(events.map((e) => e.type))]],
  );
  if (!subs.length) return reactions;
  const all = new Map<string, readonly string[]>(reactions);
  for (const s of subs) all.set(s.type, [...new Set([...(all.get(s.type) ?? []), s.plugin])]);
  return all;
}

/** The pg-boss queue of a plugin's reactions (core/jobs/run.ts works it). */
export const reactionQueue = (plugin: string) => `${plugin}.on`;

/** One job per (event, reacting plugin), each with its row in `jobs` (its name in the jobs list: `loyalty.on:order.paid`). */
async function queueReactions(
  tx: Db,
  storeId: string,
  events: { id: string; type: string; created_at: string }[],
  reactions: ReadonlyMap<string, readonly string[]>,
) {
  const wanted = events.flatMap((e) => (reactions.get(e.type) ?? []).map((plugin) => ({ id: crypto.randomUUID(), plugin, event: e })));
  if (!wanted.length) return;
  await tx.query(
    `INSERT INTO jobs (id, store_id, type, status, created_at)
     SELECT x.id, $1, x.type, 'queued', x.created_at FROM jsonb_to_recordset($2::text::jsonb) AS x(id uuid, type text, created_at timestamptz)`,
    [storeId, JSON.stringify(wanted.map((w) => ({ id: w.id, type: `${w.plugin}.on:${w.event.type}`, created_at: w.event.created_at })))],
  );
  for (const plugin of new Set(wanted.map((w) => w.plugin)))
    await enqueue(
      tx,
      reactionQueue(plugin),
      wanted.filter((w) => w.plugin === plugin).map((w) => ({ data: { store_id: storeId, event_id: w.event.id, job_id: w.id } })),
    );
}

/**
 * For actions that cannot use ctx.emit (streaming ones, which write in several short
 * transactions): writes the events the store subscribes to in the caller's transaction `tx`, and
 * those some plugin reacts to when the caller passes `reactions` (ctx.registry.reactions), with
 * their reactions' jobs.
 */
export async function recordEvents(
  tx: Db,
  storeId: string,
  events: PendingEvent[],
  reactions?: ReadonlyMap<string, readonly string[]>,
): Promise<void> {
  const subscribed = await subscribedTypes(tx, storeId);
  await writeEvents(
    tx,
    storeId,
    events.filter((e) => subscribed.has(e.type) || reactions?.has(e.type)),
    { reactions },
  );
}

/** What emitEvents needs of the registry: the declared event types, and which plugins react to which. */
export interface EventTypes {
  events: ReadonlyMap<string, unknown>;
  reactions: ReadonlyMap<string, readonly string[]>;
}

/**
 * ctx.emit for a plugin's writes outside an action's transaction (a streaming action's own short
 * transactions, a write-behind batch, a job batch across stores, mail arriving): writes `events` of
 * `storeId` in `tx`, as ctx.emit would. Each type must be declared by a plugin (a typo throws, as
 * ctx.emit's does); an event is stored when the store subscribes to its type or a plugin reacts
 * to it, and the reactions are queued in `tx`. The registry is required, so no caller can leave
 * the reactions out.
 */
export async function emitEvents(tx: Db, registry: EventTypes, storeId: string, events: PendingEvent[]): Promise<void> {
  for (const e of events) if (!registry.events.has(e.type)) throw new Error(`emitEvents: no plugin declares the event type '${e.type}'`);
  await recordEvents(tx, storeId, events, registry.reactions);
}
