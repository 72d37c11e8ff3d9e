import { emitEvents, iso, writeBehind, type Db, type EventTypes, type Logger } from '../../core/sdk';

/**
 * Opens through the pixel, recorded in small batches (core/write-behind.ts). The pixel answers the
 * same whatever the link holds, so it need not wait for the database: each open joins a batch that
 * is written a few milliseconds later in one statement (the token check, the `opened` events, the
 * first-open daily counts), plus the webhook events of the stores that subscribe. At shutdown the
 * core writes what is pending, then each open before its answer, so an open answered while the HTTP
 * server finishes its last requests is not lost either.
 */
export interface PendingOpen {
  messageId: string;
  token: string;
  userAgent: string;
  ip: string | null;
  /** The user agent alone marks it as no person's open (tracking.ts isMachineOpen). */
  machineAgent: boolean;
  at: Date;
  /** ctx.registry: `email.opened` is stored for every store when a plugin reacts to it. */
  registry: EventTypes;
}

/** How late an open is written at most (unless the batch fills first; a test may hold it longer). */
export const openBatching = { delayMs: 5 };

// One lane: batches touch shared daily-count rows, so one write at a time never deadlocks another.
export const opens = writeBehind<PendingOpen>({ name: 'email opens', write: writeOpens, delayMs: 5, maxBatch: 500, maxPending: 2000 });

/** Takes an open; resolves at once while batching, or once written when the writes are behind or after the drain began. */
export function recordOpen(db: Db, open: PendingOpen, log: Logger): Promise<boolean> | undefined {
  return opens.add(db, open, log, openBatching.delayMs);
}

/** Writes every pending open now (tests, benchmarks). */
export const flushOpens = () => opens.flush();

/**
 * One statement for a batch: only opens whose token is their message's count; machine opens
 * (by agent, or within 2 s of delivery) are kept but do not count; a message's first open counts
 * once in its UTC day. Then the webhook events, per store (only subscribed stores keep any).
 */
async function writeOpens(db: Db, batch: PendingOpen[]) {
  await db.transaction(async (tx) => {
    const rows = await tx.query<{ message_id: string; store_id: string; user_agent: string; ip: string | null; at: Date; machine: boolean }>(
      `WITH b AS (
         SELECT * FROM jsonb_to_recordset($1::text::jsonb)
           AS b(n int, message_id uuid, token text, user_agent text, ip text, machine_agent boolean, at timestamptz)
       ), v AS (
         SELECT b.n, b.message_id, m.store_id, b.user_agent, b.ip, b.at,
                b.machine_agent OR (m.sent_at IS NOT NULL AND b.at - m.sent_at < interval '2 seconds') AS machine
         FROM b JOIN email_messages m ON m.id = b.message_id AND m.tracking_token = b.token
       ), events AS (
         INSERT INTO email_events (id, store_id, message_id, event, details, machine, created_at)
         -- In the order they were answered: a message's events are listed by seq.
         SELECT gen_random_uuid(), store_id, message_id, 'opened', jsonb_build_object('user_agent', user_agent, 'ip', ip, 'machine', machine), machine, at
         FROM v ORDER BY n
       ), firsts AS (
         INSERT INTO email_event_firsts (message_id, event, store_id)
         SELECT DISTINCT message_id, 'opened', store_id FROM v WHERE NOT machine
         ON CONFLICT DO NOTHING RETURNING message_id, store_id
       ), days AS (
         SELECT f.store_id, (min(v.at) AT TIME ZONE 'UTC')::date AS day
         FROM firsts f JOIN v ON v.message_id = f.message_id AND NOT v.machine GROUP BY f.message_id, f.store_id
       ), daily AS (
         INSERT INTO email_daily_stats (store_id, day, event, shard, messages)
         SELECT store_id, day, 'opened', floor(random() * 16)::int, count(*) FROM days GROUP BY store_id, day
         ON CONFLICT (store_id, day, event, shard) DO UPDATE SET messages = email_daily_stats.messages + EXCLUDED.messages
       )
       SELECT message_id, store_id, user_agent, ip, at, machine FROM v ORDER BY n`,
      [
        JSON.stringify(
          batch.map((o, n) => ({
            n,
            message_id: o.messageId,
            token: o.token,
            user_agent: o.userAgent,
            ip: o.ip,
            machine_agent: o.machineAgent,
            at: o.at,
          })),
        ),
      ],
    );
    const byStore = new Map<string, typeof rows>();
    for (const r of rows) byStore.set(r.store_id, [...(byStore.get(r.store_id) ?? []), r]);
    for (const [storeId, list] of byStore) {
      // Every open of a batch carries the one registry of this process.
      await emitEvents(
        tx,
        batch[0].registry,
        storeId,
        list.map((r) => {
          const at = new Date(r.at);
          const details = { user_agent: r.user_agent, ip: r.ip, machine: r.machine };
          return {
            type: 'email.opened',
            at,
            data: { object: 'email_event', id: r.message_id, message_id: r.message_id, event: 'opened', details, timestamp: iso(at) },
          };
        }),
      );
    }
  });
}
