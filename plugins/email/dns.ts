import { getServers } from 'node:dns';
import type DNS from 'dns2';
import { lazy, type Db } from '../../core/sdk';
import { DMARC_POLICY, dkimTxt } from './domains';

// Loaded at the first lookup or listener (docs/footprint.md: libraries load on first use).
// dns2's typings lack RCODE and the server's listen options; its runtime has both.
const dns2 = lazy(() => require('dns2') as typeof DNS & { Packet: any });

export interface ResolverAddress {
  address: string;
  port: number;
}

/** `host`, `host:port` or `[v6]:port`; default: the system's first resolver (/etc/resolv.conf). */
export function resolverOf(setting: string | undefined): ResolverAddress {
  const text = setting?.trim() || getServers()[0];
  if (!text) throw new Error('No DNS resolver: set SVC_DNS_RESOLVER (host:port).');
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text);
  return m ? { address: m[1], port: Number(m[2] ?? 53) } : { address: text, port: 53 };
}

const clientOf = (resolver: ResolverAddress) =>
  new (dns2())({ nameServers: [resolver.address], port: resolver.port, recursive: true, timeout: 3, retries: 1 });

/**
 * TXT records at `name` as whole strings (a record's character-strings joined, as SPF and DKIM
 * read them), following CNAMEs. dns2's client keeps a record's strings together; Bun's node:dns
 * Resolver hands them back as separate records, which cuts a 2048-bit DKIM key in two.
 */
export async function lookupTxt(resolver: ResolverAddress, name: string): Promise<{ txt: string[]; chain: string[] }> {
  const { Packet } = dns2();
  const client = clientOf(resolver);
  const chain: string[] = [];
  let current = name.toLowerCase().replace(/\.$/, '');
  for (let hop = 0; hop < 8; hop++) {
    const res: any = await client.resolve(current, 'TXT');
    const answers: any[] = res.answers ?? [];
    const txt = answers.filter((a) => a.type === Packet.TYPE.TXT && a.name.toLowerCase() === current);
    if (txt.length) return { txt: txt.map((a) => (Array.isArray(a.data) ? a.data.join('') : String(a.data))), chain };
    const alias = answers.find((a) => a.type === Packet.TYPE.CNAME && a.name.toLowerCase() === current);
    if (!alias) return { txt: [], chain };
    current = String(alias.domain).toLowerCase().replace(/\.$/, '');
    chain.push(current);
  }
  return { txt: [], chain };
}

/** Where a name's CNAME points (one hop), or null. */
export async function lookupCname(resolver: ResolverAddress, name: string): Promise<string | null> {
  const client = clientOf(resolver);
  const res: any = await client.resolve(name, 'CNAME');
  const alias = (res.answers ?? []).find((a: any) => a.type === dns2().Packet.TYPE.CNAME);
  return alias ? String(alias.domain).toLowerCase().replace(/\.$/, '') : null;
}

/** A TXT value as DNS character-strings of at most 255 bytes (RFC 1035), as a DKIM key needs. */
const chunks = (s: string) => s.match(/.{1,255}/g) ?? [''];

/**
 * The answers for one name of the instance's zone: `spf.<zone>`, `<label>.dkim.<zone>` (the
 * domain's DKIM key), `<label>.dmarc.<zone>` (its DMARC policy). Null: no such name.
 */
export async function zoneAnswer(db: Db, zone: string, name: string, spf: string): Promise<string | null> {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n === `spf.${zone}`) return `v=spf1 ${spf ? spf + ' ' : ''}~all`;
  const m = new RegExp(`^([0-9a-f]{32})\\.(dkim|dmarc)\\.${zone.replace(/\./g, '\\.')}$`).exec(n);
  if (!m) return null;
  const id = m[1].replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
  const [row] = await db.query<{ dkim_public: string }>('SELECT dkim_public FROM email_domains WHERE id = $1', [id]);
  if (!row) return null;
  return m[2] === 'dkim' ? dkimTxt(row.dkim_public) : DMARC_POLICY;
}

/**
 * The authoritative DNS listener for SVC_EMAIL_DNS_ZONE (SVC_DNS_LISTEN, UDP and TCP): the zone's
 * SOA at its apex, TXT records below it, NXDOMAIN for names it does not know.
 */
export async function startDnsListener(opts: { db: Db; zone: string; listen: string; spf: string; log: (m: string) => void }) {
  const { address, port } = resolverOf(opts.listen);
  const { Packet, createServer } = dns2() as any;
  const server: any = createServer({
    udp: true,
    tcp: true,
    handle: async (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      const [q] = request.questions;
      const name = String(q?.name ?? '').toLowerCase();
      try {
        const inZone = name === opts.zone || name.endsWith(`.${opts.zone}`);
        if (!inZone) {
          response.header.rcode = Packet.RCODE.REFUSED;
        } else if (name === opts.zone) {
          if (q.type === Packet.TYPE.SOA || q.type === Packet.TYPE.ANY) {
            response.answers.push({
              name,
              type: Packet.TYPE.SOA,
              class: Packet.CLASS.IN,
              ttl: 300,
              primary: `ns.${opts.zone}`,
              admin: `hostmaster.${opts.zone}`,
              serial: 1,
              refresh: 3600,
              retry: 600,
              expiration: 86400,
              minimum: 300,
            });
          }
        } else {
          const txt = await zoneAnswer(opts.db, opts.zone, name, opts.spf);
          if (txt === null) response.header.rcode = Packet.RCODE.NXDOMAIN;
          else if (q.type === Packet.TYPE.TXT || q.type === Packet.TYPE.ANY) {
            response.answers.push({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 300, data: chunks(txt) });
          }
        }
      } catch {
        response.header.rcode = Packet.RCODE.SERVFAIL;
      }
      send(response);
    },
  });
  await server.listen({ udp: { port, address, type: address.includes(':') ? 'udp6' : 'udp4' }, tcp: { port, address } });
  const bound = server.addresses();
  opts.log(`email: DNS for ${opts.zone} on ${address}:${bound.udp?.port ?? port}`);
  return { port: bound.udp?.port as number, stop: () => server.close() };
}
