/**
 * `bun bench/email.ts`: the three email figures of issue 28, on real PostgreSQL (a throwaway
 * database; set DATABASE_URL= empty for the embedded PGlite). Prints a markdown table; asserts nothing.
 *
 * 1. Sending: messages per second from API accept to relay accept, DKIM-signed, with one worker
 *    (the deliver job run batch after batch, 50 a batch as pg-boss hands them) and a local
 *    smtp-server relay in a child process (bench/relay-child.ts: it stands for an outside
 *    service, so its CPU is not svc's). Accepts go through the in-process app; the clock runs
 *    from the first accept to the relay's last 250.
 * 2. Opens per second through the pixel: wrk against a real HTTP listener.
 * Each of (1) and (2) also prints its cost per unit of work: CPU of this process and of the
 * PostgreSQL processes, and database round trips (bench/db-counter.ts), steadier than rates on a
 * shared machine.
 * 3. Stats over one million events: GET /email/stats for a 30-day range, median of 5 (the daily
 *    counts are built from the inserted events as recording them one by one would have).
 *
 *   BENCH_MESSAGES  messages sent in (1) (default 2000)
 *   BENCH_SECONDS   length of the wrk run (default 10)
 *   BENCH_EVENTS    events in (3) (default 1000000)
 *   BENCH_TRACE     set: also list the statements each message and each open costs (to stderr)
 */
export {};
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
// DKIM keys are sealed: a key for this run when none is set (PostgreSQL requires one).
process.env.SVC_SECRET_KEY ||= Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
const { setup } = await import('../test/kit/setup');
const { closeSharedDb, sharedDbUrl } = await import('../test/kit/db');
const { freePort } = await import('../test/kit/email');
const { closeTransports } = await import('../plugins/email/delivery');
const { flushOpens } = await import('../plugins/email/opens');
const { createLogger } = await import('../core/log');
const { pluginJobs } = await import('../core/jobs/run');
const { requireWrk, runWrk } = await import('./wrk');
const { countRoundTrips } = await import('./db-counter');
const { cpuMs, postgresCpuMs, postgresCpuSince } = await import('./proc-cpu');

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const log = (l: string) => console.error(l);
const wrk = requireWrk();

const relay = await startRelayProcess();
const port = freePort();
const publicUrl = `http://127.0.0.1:${port}`;
const env = { SMTP_URL: relay.url, SVC_EMAIL_FROM: 'noreply@svc.test', SVC_EMAIL_DNS_ZONE: 'dns.bench.test', SVC_PUBLIC_URL: publicUrl };
const h = await setup({ env, plan: 'enterprise' });
const rows: string[][] = [];
const trips = countRoundTrips(h.db);
const onPostgres = !!process.env.DATABASE_URL;
// This run's own database: the server is shared, and other engineers' tests use it meanwhile.
const database = onPostgres ? new URL((await sharedDbUrl())!).pathname.slice(1) : undefined;

/** The relay child: its port, and how many messages it took (and how many of them unsigned), as it reports them. */
async function startRelayProcess() {
  const proc = Bun.spawn([process.execPath, `${import.meta.dir}/relay-child.ts`], { stdout: 'pipe', stderr: 'inherit' });
  const counts = { received: 0, unsigned: 0 };
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let ready = (_port: number) => {};
  const port = new Promise<number>((r) => (ready = r));
  void (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      buf += chunk.value;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        const [word, a, b] = line.split(' ');
        if (word === 'READY') ready(Number(a));
        if (word === 'RECEIVED') Object.assign(counts, { received: Number(a), unsigned: Number(b) });
      }
    }
  })();
  const url = `smtp://127.0.0.1:${await port}`;
  return { url, counts, pid: proc.pid, stop: async () => (proc.kill(), await proc.exited) };
}

/** Server CPU (this process: the app and the worker; the relay is a child process) and PostgreSQL CPU per unit of work, and round trips. */
function costMeter() {
  trips.reset();
  const cpu = process.cpuUsage();
  const pg = onPostgres ? postgresCpuMs(database) : undefined;
  const relayCpu = cpuMs(relay.pid);
  return (units: number, noun: string) => {
    const used = process.cpuUsage(cpu);
    const relayUs = relayCpu === undefined ? undefined : ((cpuMs(relay.pid)! - relayCpu) * 1000) / units;
    const serverUs = (used.user + used.system) / units;
    const pgUs = pg ? (postgresCpuSince(pg, postgresCpuMs(database)!) * 1000) / units : undefined;
    for (const line of trips.top(units)) log(`  ${line}`);
    return `${Math.round(serverUs)} µs server CPU${pgUs === undefined ? '' : `, ${Math.round(pgUs)} µs PostgreSQL CPU (its backends)`}, ${(trips.trips / units).toFixed(1)} round trips per ${noun}${relayUs ? ` (the relay process: ${Math.round(relayUs)} µs)` : ''}`;
  };
}

try {
  // 1. Sending.
  const domain = (await h.call('POST', '/email/domains', { domain: 'mail.bench.test' })).body;
  if (!domain.id) throw new Error(`domain: ${JSON.stringify(domain)}`);
  await h.db.query(`UPDATE email_domains SET status = 'verified' WHERE id = $1`, [domain.id]);
  const deliver = pluginJobs(h.db, h.clock, h.registry).find((j) => j.queue === 'email.deliver')!;
  log(`sending ${MESSAGES} messages...`);
  const sendCost = costMeter();
  const t0 = performance.now();
  let accepted = 0;
  const accept = async () => {
    while (accepted < MESSAGES) {
      const n = accepted++;
      const r = await h.call('POST', '/email/send', {
        to: `r${n}@example.com`,
        from: 'hi@mail.bench.test',
        subject: `Order ${n}`,
        text: 'Thanks.',
        html: '<p>Thanks.</p>',
      });
      if (r.status !== 201) throw new Error(`send: ${r.status} ${JSON.stringify(r.body)}`);
    }
  };
  const senders = Promise.all(Array.from({ length: 8 }, accept));
  // One worker: fetch up to 50 due jobs, deliver them, repeat, while accepts go on.
  const worker = (async () => {
    while (relay.counts.received < MESSAGES) {
      const batch = await h.db.query<{ data: unknown }>(
        `DELETE FROM pgboss.job WHERE id IN (SELECT id FROM pgboss.job WHERE name = 'email.deliver' AND state = 'created' LIMIT 50) RETURNING data`,
      );
      if (batch.length) await deliver.run!(batch.map((b) => b.data));
      else await Bun.sleep(2);
    }
  })();
  await senders;
  const tAccepted = performance.now();
  await worker;
  const t1 = performance.now();
  if (relay.counts.unsigned) throw new Error(`${relay.counts.unsigned} messages went out unsigned`);
  rows.push(['sending: API accept to relay accept, DKIM-signed, 1 worker', `${Math.round(MESSAGES / ((t1 - t0) / 1000))} messages/s`, '>= 300/s']);
  rows.push(['  of which accepting (POST /email/send, 8 concurrent)', `${Math.round(MESSAGES / ((tAccepted - t0) / 1000))} messages/s`, '']);
  rows.push(['  cost per message, accept and delivery', sendCost(MESSAGES, 'message'), '']);
  closeTransports();

  // 2. Opens through the pixel, over HTTP.
  const [m] = await h.db.query<{ id: string; tracking_token: string }>('SELECT id, tracking_token FROM email_messages WHERE store_id = $1 LIMIT 1', [
    h.store.id,
  ]);
  h.app.listen({ port, hostname: '127.0.0.1' });
  const pixel = `${publicUrl}/e/o/${m.id}/${m.tracking_token}.gif`;
  log(`opens through ${pixel} for ${SECONDS}s...`);
  // A person's open: a minute after delivery (within 2 s it would count as a machine's prefetch).
  h.clock.advance(60_000);
  await runWrk(wrk, { url: pixel, seconds: 2, connections: 32, threads: 2 }); // warm-up
  const openCost = costMeter();
  const opens = await runWrk(wrk, { url: pixel, seconds: SECONDS, connections: 32, threads: 2, headers: { 'user-agent': 'Mozilla/5.0 (bench)' } });
  await flushOpens(); // the last few ms of opens wait for their batch
  const openCostLine = openCost(opens.requests, 'open');
  const [recorded] = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM email_events WHERE message_id = $1 AND event = 'opened'`, [
    m.id,
  ]);
  // Every answered open is recorded (the warm-up's too, hence at least).
  if (recorded.n < opens.requests) throw new Error(`${opens.requests} opens answered, ${recorded.n} recorded`);
  rows.push([
    'opens through the pixel (wrk, 32 connections)',
    `${Math.round(opens.rps)} opens/s (p99 ${opens.p99} ms, ${opens.errors} errors)`,
    '>= 5,000/s',
  ]);
  rows.push(['  cost per open', openCostLine, '']);
  h.app.stop(true);

  // 3. Stats over a million events of one store, spread over 30 days.
  log(`inserting ${EVENTS} events...`);
  const ids = (await h.db.query<{ id: string }>('SELECT id FROM email_messages WHERE store_id = $1', [h.store.id])).map((r) => r.id);
  await h.db.query(
    `INSERT INTO email_events (id, store_id, message_id, event, details, machine, created_at)
     SELECT gen_random_uuid(), $1, ($2::uuid[])[1 + i % $3], (ARRAY['delivered','opened','opened','clicked','bounced','complained','unsubscribed'])[1 + i % 7],
            '{}'::jsonb, i % 11 = 0, '2026-03-03T00:00:00Z'::timestamptz + (i % 2592000) * interval '1 second'
     FROM generate_series(1, $4) AS i`,
    [h.store.id, `{${ids.join(',')}}`, ids.length, EVENTS],
  );
  // The daily counts as recording each event one by one would have left them (messages.ts countFirst).
  await h.db.query('DELETE FROM email_event_firsts WHERE store_id = $1', [h.store.id]);
  await h.db.query('DELETE FROM email_daily_stats WHERE store_id = $1', [h.store.id]);
  await h.db.query(
    `WITH firsts AS (
       INSERT INTO email_event_firsts (message_id, event, store_id)
       SELECT message_id, event, store_id FROM email_events WHERE store_id = $1 AND NOT machine GROUP BY message_id, event, store_id
       RETURNING message_id, event
     ), days AS (
       SELECT f.event, (min(e.created_at) AT TIME ZONE 'UTC')::date AS day FROM firsts f
       JOIN email_events e ON e.message_id = f.message_id AND e.event = f.event AND NOT e.machine GROUP BY f.message_id, f.event
     )
     INSERT INTO email_daily_stats (store_id, day, event, shard, messages) SELECT $1, day, event, 0, count(*) FROM days GROUP BY day, event`,
    [h.store.id],
  );
  await h.db.query(
    `INSERT INTO email_daily_stats (store_id, day, event, shard, messages)
     SELECT $1, (created_at AT TIME ZONE 'UTC')::date, 'sent', 0, count(*) FROM email_messages WHERE store_id = $1 GROUP BY 2`,
    [h.store.id],
  );
  await h.db.query('ANALYZE email_events');
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    const r = await h.call('GET', '/email/stats?date_from=2026-03-03&date_to=2026-04-01');
    times.push(performance.now() - s);
    if (r.status !== 200) throw new Error(`stats: ${r.status}`);
  }
  times.sort((a, b) => a - b);
  rows.push([`stats over ${EVENTS.toLocaleString('en')} events (30 days, median of 5)`, `${Math.round(times[2])} ms`, '< 200 ms']);

  const backend = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';
  console.log(
    `\n| email figure (${backend}, load ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}) | measured | target |\n|---|---:|---|`,
  );
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
} finally {
  await relay.stop();
  await closeSharedDb();
}
