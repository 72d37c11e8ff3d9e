/**
 * IP parsing, CIDR matching and the table of address ranges the egress guard refuses.
 *
 * Written here rather than taken from npm: the parsing is ~70 lines, strict (it fails
 * closed on anything odd), and a package such as ipaddr.js would still need our own
 * table (cloud metadata hosts, 3fff::/20, NAT64 unwrapping), so it would add a
 * dependency without removing much code. ip.test.ts checks it against node:net.
 */

/** 4 bytes (IPv4) or 16 bytes (IPv6). IPv4-mapped IPv6 is always unwrapped to 4 bytes. */
export type IpBytes = Uint8Array;

/** Strict dotted quad: four decimal octets, no leading zeros (which some parsers read as octal). */
function parseV4(s: string): IpBytes | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

function parseV6(s: string): IpBytes | null {
  // Zone ids (fe80::1%eth0) are not routable targets for us; refuse to parse them.
  if (s.includes('%')) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string): number[] | null => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p); // embedded IPv4 tail, e.g. ::ffff:127.0.0.1
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return null;
        out.push(parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...new Array(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  return out;
}

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/**
 * Parses an IPv4 or IPv6 literal (brackets allowed). ::ffff:a.b.c.d comes back as the
 * 4-byte IPv4 address so that one rule covers both spellings. Returns null if invalid.
 */
export function parseIp(input: string): IpBytes | null {
  let s = input.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (s.includes(':')) {
    const b = parseV6(s);
    if (b && MAPPED_PREFIX.every((v, i) => b[i] === v)) return b.slice(12);
    return b;
  }
  return parseV4(s);
}

/** Canonical text: dotted quad, or the shortest RFC 5952 IPv6 form (no brackets). */
export function formatIp(b: IpBytes): string {
  if (b.length === 4) return b.join('.');
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((b[i] << 8) | b[i + 1]);
  // Longest run of >= 2 zero groups becomes "::" (first one on ties).
  let best = -1,
    bestLen = 1;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (a: number[]) => a.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

export interface Cidr {
  bytes: IpBytes;
  prefix: number;
}

/** "10.0.0.0/8", "fd00::/8" or a bare address (a /32 or /128). Null if invalid. */
export function parseCidr(s: string): Cidr | null {
  const slash = s.indexOf('/');
  const bytes = parseIp(slash < 0 ? s : s.slice(0, slash));
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (slash < 0) return { bytes, prefix: max };
  const p = s.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(p)) return null;
  let prefix = Number(p);
  // "::ffff:10.0.0.0/104" was unwrapped to IPv4 above; move the prefix along with it.
  if (bytes.length === 4 && s.slice(0, slash).includes(':')) prefix -= 96;
  if (prefix < 0 || prefix > max) return null;
  return { bytes, prefix };
}

export function inCidr(addr: IpBytes, c: Cidr): boolean {
  if (addr.length !== c.bytes.length) return false;
  let bits = c.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((addr[i] & mask) !== (c.bytes[i] & mask)) return false;
  }
  return true;
}

/** What kind of non-public address this is; used in the refusal message. */
export type BlockReason =
  | 'cloud metadata'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'unspecified'
  | 'shared (CGNAT)'
  | 'benchmarking'
  | 'documentation'
  | 'reserved';

// Order matters: the first match names the reason, so specific entries (metadata) come
// before the ranges that contain them.
const RULES: Array<[string, BlockReason]> = [
  ['169.254.169.254/32', 'cloud metadata'], // AWS, GCP, Azure, OCI, DigitalOcean...
  ['169.254.170.2/32', 'cloud metadata'], // AWS ECS task credentials
  ['100.100.100.200/32', 'cloud metadata'], // Alibaba Cloud
  ['fd00:ec2::254/128', 'cloud metadata'], // AWS IMDS over IPv6
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (incl. 192.0.0.192, old OCI metadata)
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // incl. 255.255.255.255 broadcast
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'reserved'], // deprecated site-local
  ['ff00::/8', 'multicast'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['2001::/23', 'reserved'], // IETF assignments incl. Teredo, which tunnels to arbitrary IPv4
  ['2002::/16', 'reserved'], // 6to4, embeds an arbitrary IPv4 address
  ['64:ff9b:1::/48', 'reserved'], // local-use NAT64
  ['100::/64', 'reserved'], // discard-only
];
const PARSED_RULES = RULES.map(([c, reason]) => ({ cidr: parseCidr(c)!, reason }));
const NAT64 = parseCidr('64:ff9b::/96')!;
const GLOBAL_UNICAST_V6 = parseCidr('2000::/3')!;

/**
 * Null for a public address, else why it is refused. IPv6 outside 2000::/3 is not
 * global unicast today, so it is refused as a whole (fail closed on future allocations).
 * NAT64 (64:ff9b::/96) is judged by the IPv4 address it carries.
 */
export function blockReason(addr: IpBytes): BlockReason | null {
  for (const r of PARSED_RULES) if (inCidr(addr, r.cidr)) return r.reason;
  if (addr.length === 16) {
    if (inCidr(addr, NAT64)) return blockReason(addr.slice(12));
    if (!inCidr(addr, GLOBAL_UNICAST_V6)) return 'reserved';
  }
  return null;
}
