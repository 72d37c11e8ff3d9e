import { jobInsertStatement, type Ctx, type Db, type Row } from '../../core/sdk';
import { DELIVER_QUEUE } from './delivery';

/**
 * Writing accepted messages, a store's concurrent sends together.
 *
 * The hourly limit is exact because every send takes its slot on one counter row per store and UTC
 * hour, and PostgreSQL holds that row's lock until the commit. One statement per send therefore
 * makes a store's parallel sends wait for each other's commits: on a loaded machine (slow commits)
 * that, not CPU, capped one store at about 200 messages a second. So sends of one store (and hour)
 * that arrive while its statement runs wait in a lane and go together in the next statement: the
 * counter takes all their slots at once, and one commit covers them all. A lone send goes at once,
 * as before. A lane is per Db object, so a send inside a caller's transaction (an Idempotency-Key,
 * a shared-inbox reply) only ever shares a statement with its own transaction's sends: none.
 */

/** One message as the statement takes it (jsonb_to_recordset below names the fields). */
export interface NewMessage {
  id: string;
  to_addresses: string[];
  from_address: string;
  reply_to: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  category: string;
  template_id: string | null;
  template_version: number | null;
  tags: string[];
  attachments: unknown;
  message_id_header: string;
  tracking_token: string;
  links: unknown[];
  headers: Record<string, string> | null;
  thread_id: string | null;
  created_at: Date;
  /** false: the sender is SVC_EMAIL_FROM; true: `host` must be one of the store's verified domains. */
  needs_domain: boolean;
  host: string;
}

export interface Lane {
  storeId: string;
  /** The UTC clock hour whose counter the sends take. */
  hour: Date;
  limit: number;
  /** Whether a delivery job goes with each queued message (SMTP_URL is set). */
  withJob: boolean;
  /** The sending action's ctx.enqueue, for when pg-boss's insert cannot join the statement. */
  enqueue: Ctx['enqueue'];
}

/** `row` null: the hour had no room. */
export type Accepted = { sender_ok: boolean; row: Row | null };

const MAX_BATCH = 100;
type Waiting = { m: NewMessage; resolve: (a: Accepted) => void; reject: (e: unknown) => void };
const lanes = new WeakMap<Db, Map<string, { lane: Lane; waiting: Waiting[] }>>();

/** Writes `m` (with its slot, counts and job), together with other sends of its lane that wait. */
export function acceptMessage(db: Db, lane: Lane, m: NewMessage): Promise<Accepted> {
  let byKey = lanes.get(db);
  if (!byKey) lanes.set(db, (byKey = new Map()));
  const key = `${lane.storeId}|${lane.hour.toISOString()}|${lane.limit}|${lane.withJob}`;
  return new Promise((resolve, reject) => {
    const open = byKey.get(key);
    if (open) return void open.waiting.push({ m, resolve, reject });
    const entry = { lane, waiting: [{ m, resolve, reject }] };
    byKey.set(key, entry);
    void drain(db, entry, () => byKey.delete(key));
  });
}

async function drain(db: Db, entry: { lane: Lane; waiting: Waiting[] }, done: () => void) {
  const single = (w: Waiting) => write(db, entry.lane, [w.m]).then((out) => w.resolve(out[0]), w.reject);
  while (entry.waiting.length) {
    const batch = entry.waiting.splice(0, MAX_BATCH);
    if (batch.length === 1) {
      await single(batch[0]);
      continue;
    }
    let out: Accepted[];
    try {
      out = await write(
        db,
        entry.lane,
        batch.map((w) => w.m),
      );
    } catch {
      // Whatever one send's row did to the statement is that send's alone: each tries again singly.
      for (const w of batch) await single(w);
      continue;
    }
    // A batch the hour could not hold whole wrote nothing: each send tries again singly, and so
    // gets a slot exactly when one is left.
    for (let i = 0; i < batch.length; i++) {
      if (out[i].sender_ok && !out[i].row) await single(batch[i]);
      else batch[i].resolve(out[i]);
    }
  }
  done();
}

/**
 * One statement: each sender's domain, the batch's slots in the hour's count (all or none), the
 * suppression list, the messages, their daily count and their delivery jobs (pg-boss's own insert,
 * fed only with the queued ones). Nothing is written for a sender that is not allowed, and nothing
 * at all unless the hour has room.
 */
async function write(db: Db, lane: Lane, messages: NewMessage[]): Promise<Accepted[]> {
  const jobSql = lane.withJob ? await jobInsertStatement(db, DELIVER_QUEUE) : undefined;
  const job = jobSql
    ? // The job's data as ctx.enqueue writes it: {input}.
      `, job AS (${jobSql(`SELECT jsonb_agg(jsonb_build_object('data', jsonb_build_object('input', jsonb_build_object('message_id', id))))::text FROM msg WHERE status = 'queued'`)})`
    : '';
  const run = (tx: Db) =>
    tx.query<Accepted>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS x(i int, id uuid, to_addresses jsonb, from_address text, reply_to text,
           subject text, html text, text text, category text, template_id uuid, template_version int, tags jsonb, attachments jsonb,
           message_id_header text, tracking_token text, links jsonb, headers jsonb, thread_id uuid, created_at timestamptz,
           needs_domain boolean, host text)
       ), checked AS (
         SELECT input.*, NOT needs_domain OR EXISTS (
           SELECT 1 FROM email_domains d WHERE d.store_id = $2 AND d.domain = input.host AND d.status = 'verified') AS sender_ok
         FROM input
       ), wanted AS (
         SELECT count(*)::int AS n FROM checked WHERE sender_ok
       ), slot AS (
         INSERT INTO email_hourly_sends (store_id, hour, messages) SELECT $2::uuid, $3::timestamptz, n FROM wanted WHERE n BETWEEN 1 AND $4
         ON CONFLICT (store_id, hour) DO UPDATE SET messages = email_hourly_sends.messages + EXCLUDED.messages
           WHERE email_hourly_sends.messages + EXCLUDED.messages <= $4
         RETURNING 1
       ), msg AS (
         INSERT INTO email_messages (id, store_id, to_addresses, from_address, reply_to, subject, html, text, category, template_id,
           template_version, tags, attachments, status, message_id_header, tracking_token, links, headers, thread_id, created_at, updated_at)
         SELECT id, $2::uuid, to_addresses, from_address, reply_to, subject, html, text, category, template_id, template_version, tags,
           attachments,
           CASE WHEN (SELECT count(*) FROM email_suppressions s WHERE s.store_id = $2 AND s.address IN (SELECT jsonb_array_elements_text(to_addresses)))
                     = jsonb_array_length(to_addresses) THEN 'suppressed' ELSE 'queued' END,
           message_id_header, tracking_token, links, headers, thread_id, created_at, created_at
         FROM checked WHERE sender_ok AND EXISTS (SELECT 1 FROM slot)
         -- What the answer shows (toMessage), not the bodies, links and attachments it does not.
         RETURNING id, to_addresses, from_address, reply_to, subject, status, category, template_id, template_version, tags, smtp_response,
           created_at, updated_at
       ), daily AS (
         INSERT INTO email_daily_stats (store_id, day, event, shard, messages)
         SELECT $2::uuid, ($3::timestamptz AT TIME ZONE 'UTC')::date, 'sent', $5::int, count(*) FROM msg WHERE status = 'queued' HAVING count(*) > 0
         ON CONFLICT (store_id, day, event, shard) DO UPDATE SET messages = email_daily_stats.messages + EXCLUDED.messages
       )${job}
       SELECT c.sender_ok, (SELECT to_jsonb(m) FROM msg m WHERE m.id = c.id) AS row FROM checked c ORDER BY c.i`,
      [JSON.stringify(messages.map((m, i) => ({ ...m, i }))), lane.storeId, lane.hour, lane.limit, Math.floor(Math.random() * 16)],
    );
  if (jobSql || !lane.withJob) return run(db);
  // pg-boss's insert cannot be a CTE here: the jobs first, committed with the messages (a refused or
  // suppressed message's job finds nothing queued and does nothing).
  return db.transaction(async (tx) => {
    await lane.enqueue(
      'deliver',
      messages.map((m) => ({ message_id: m.id })),
      { db: tx },
    );
    return run(tx);
  });
}
