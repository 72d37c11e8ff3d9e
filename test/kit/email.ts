/**
 * Real local servers for the email tests (never imported by the plugin): an SMTP relay that
 * keeps each raw message, and a "public" DNS resolver on 127.0.0.1 that holds the customers'
 * records and forwards the instance's zone to svc's own listener, as delegation would.
 */
import DNS from 'dns2';
import { SMTPServer } from 'smtp-server';
import type { Harness } from './setup';
import { runJob } from './jobs';

export interface Captured {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP relay on 127.0.0.1; `rejectRcpt` answers a recipient with that code (550, 451). */
export async function startRelay(opts: { port?: number; rejectRcpt?: Record<string, number> } = {}) {
  const received: Captured[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      const code = opts.rejectRcpt?.[address.address];
      if (code) return cb(Object.assign(new Error(code >= 500 ? 'No such user' : 'Try again later'), { responseCode: code }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: (session.envelope.mailFrom as any)?.address ?? '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return { port, url: `smtp://127.0.0.1:${port}`, received, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A free TCP port on 127.0.0.1 (nothing listens there until a test starts something on it). */
export function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

type Records = Record<string, { type: 'TXT' | 'CNAME'; value: string }[]>;

/**
 * The resolver the world would use: `records` by name (the customer's DNS), and every name under
 * `zone` asked of svc's listener at `zonePort`.
 */
export async function startResolver(records: Records, zone: string, zonePort: number) {
  // dns2's typings lack RCODE and the server's listen options; its runtime has both.
  const { Packet } = DNS as any;
  const upstream = new DNS({ nameServers: ['127.0.0.1'], port: zonePort, timeout: 2, retries: 1 });
  const server: any = DNS.createServer({
    udp: true,
    handle: async (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      const name = String(q.name).toLowerCase();
      if (name === zone || name.endsWith(`.${zone}`)) {
        const up: any = await upstream.resolve(name, Object.keys(Packet.TYPE).find((k) => (Packet.TYPE as any)[k] === q.type) ?? 'TXT');
        response.answers.push(...(up.answers ?? []));
        response.header.rcode = up.header.rcode;
      } else {
        for (const r of records[name] ?? []) {
          if (r.type === 'CNAME') response.answers.push({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: r.value });
          else if (q.type === Packet.TYPE.TXT)
            response.answers.push({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data: r.value.match(/.{1,255}/g) });
        }
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1', type: 'udp4' } });
  const port = server.addresses().udp.port as number;
  return { port, address: `127.0.0.1:${port}`, records, stop: () => server.close() };
}

/**
 * Runs this store's queued delivery jobs as the worker would, returning how many ran. `early`:
 * also those scheduled for later (a retry's backoff), as if that time had come.
 */
export async function runJobs(h: Harness, opts: { early?: boolean } = {}) {
  const rows = await h.db.query<{ data: unknown }>(
    `DELETE FROM pgboss.job WHERE name = 'email.deliver' AND state = 'created' ${opts.early ? '' : 'AND start_after <= now()'}
       AND (data->'input'->>'message_id')::uuid IN (SELECT id FROM email_messages WHERE store_id = $1) RETURNING data`,
    [h.store.id],
  );
  if (!rows.length) return 0;
  await runJob(
    h,
    'email.deliver',
    rows.map((r) => ({ data: r.data })),
  );
  return rows.length;
}
