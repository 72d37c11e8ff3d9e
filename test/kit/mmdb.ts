/**
 * A small MaxMind DB (format 2.0) writer for tests: an IPv4 tree with 24-bit records and a data
 * section of maps and strings, enough for a city database the `maxmind` reader opens like
 * GeoLite2-City. Written from the published format description; no npm package writes mmdb here.
 */

type Value = string | number | Value[] | { [k: string]: Value };

function control(type: number, size: number): number[] {
  const ext = type > 7;
  const head = (ext ? 0 : type) << 5;
  let sizeBytes: number[] = [];
  let low = size;
  if (size >= 65821) {
    const s = size - 65821;
    low = 31;
    sizeBytes = [(s >> 16) & 255, (s >> 8) & 255, s & 255];
  } else if (size >= 285) {
    const s = size - 285;
    low = 30;
    sizeBytes = [(s >> 8) & 255, s & 255];
  } else if (size >= 29) {
    low = 29;
    sizeBytes = [size - 29];
  }
  return [head | low, ...(ext ? [type - 7] : []), ...sizeBytes];
}

function uint(type: number, n: number | bigint): number[] {
  const bytes: number[] = [];
  let v = BigInt(n);
  while (v > 0n) {
    bytes.unshift(Number(v & 255n));
    v >>= 8n;
  }
  return [...control(type, bytes.length), ...bytes];
}

function encode(v: Value, uintType = 6): number[] {
  if (typeof v === 'string') {
    const b = [...new TextEncoder().encode(v)];
    return [...control(2, b.length), ...b];
  }
  if (typeof v === 'number') return uint(uintType, v);
  if (Array.isArray(v)) return [...control(11, v.length), ...v.flatMap((x) => encode(x))];
  const entries = Object.entries(v);
  return [...control(7, entries.length), ...entries.flatMap(([k, x]) => [...encode(k), ...encode(x)])];
}

interface Node {
  kids: [Node | number | null, Node | number | null]; // a child node, a data offset, or nothing
}

/** Networks (`81.2.69.0/24`) to records; returns the .mmdb file's bytes. */
export function buildMmdb(networks: Record<string, Value>, databaseType = 'GeoLite2-City'): Uint8Array {
  const data: number[] = [];
  const root: Node = { kids: [null, null] };
  for (const [cidr, record] of Object.entries(networks)) {
    const [addr, bitsText] = cidr.split('/');
    const bits = Number(bitsText ?? 32);
    const ip = addr.split('.').reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
    const offset = data.length;
    data.push(...encode(record));
    let node = root;
    for (let i = 0; i < bits; i++) {
      const bit = (ip >>> (31 - i)) & 1;
      if (i === bits - 1) {
        node.kids[bit] = offset;
        break;
      }
      let next = node.kids[bit];
      if (typeof next !== 'object' || next === null) node.kids[bit] = next = { kids: [null, null] };
      node = next as Node;
    }
  }
  // Number the nodes breadth first; records point at node numbers or past node_count into data.
  const order: Node[] = [];
  for (let q = [root]; q.length;) {
    const n = q.shift()!;
    order.push(n);
    for (const k of n.kids) if (k && typeof k === 'object') q.push(k);
  }
  const index = new Map(order.map((n, i) => [n, i]));
  const count = order.length;
  const tree: number[] = [];
  for (const n of order)
    for (const k of n.kids) {
      const v = k === null ? count : typeof k === 'number' ? count + 16 + k : index.get(k)!;
      tree.push((v >> 16) & 255, (v >> 8) & 255, v & 255);
    }
  const meta = [
    ...control(7, 9),
    ...encode('node_count'),
    ...uint(6, count),
    ...encode('record_size'),
    ...uint(5, 24),
    ...encode('ip_version'),
    ...uint(5, 4),
    ...encode('database_type'),
    ...encode(databaseType),
    ...encode('languages'),
    ...encode(['en']),
    ...encode('binary_format_major_version'),
    ...uint(5, 2),
    ...encode('binary_format_minor_version'),
    ...uint(5, 0),
    ...encode('build_epoch'),
    ...uint(9, 1_700_000_000),
    ...encode('description'),
    ...encode({ en: 'svc test city database' }),
  ];
  const marker = [0xab, 0xcd, 0xef, ...new TextEncoder().encode('MaxMind.com')];
  return new Uint8Array([...tree, ...new Array(16).fill(0), ...data, ...marker, ...meta]);
}

/** A city record shaped as GeoLite2-City's. */
export const city = (name: string, country = 'GB') => ({ city: { names: { en: name } }, country: { iso_code: country } });
