import type { Db } from './db/types';
import type { Store } from './plugins/contract';

/**
 * Stores by hostname (issue 50): a store claims hostnames in its settings; the agentic endpoints
 * (route `rest.host`) and their well-known documents act on the store the request's Host names.
 * An instance with one store answers on any host; with several, an unclaimed host is 404 (but
 * for a store credential, which names its own store).
 */

/** A hostname as stored and compared: lower case, no port, no trailing dot. */
export function hostKey(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) h = h.slice(0, h.indexOf(']') + 1);
  else if (h.includes(':')) h = h.slice(0, h.indexOf(':'));
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** The Host a request came to (its header, else its URL). */
export const hostOf = (request: Request) => hostKey(request.headers.get('host') ?? new URL(request.url).host);

/**
 * The store that claimed `host`; for an unclaimed host, the store of the request's credential
 * (`fallback`: an ACP agent's key names its store), else the instance's only store; else none.
 */
export async function storeForHost(db: Db, host: string, fallback?: Store): Promise<Store | undefined> {
  const [claimed] = await db.query<Store>(
    'SELECT s.id, s.name, s.plan FROM store_hostnames h JOIN stores s ON s.id = h.store_id WHERE h.hostname = $1',
    [hostKey(host)],
  );
  if (claimed) return claimed;
  if (fallback) return fallback;
  const only = await db.query<Store>('SELECT id, name, plan FROM stores LIMIT 2');
  return only.length === 1 ? only[0] : undefined;
}

export async function storeHostnames(db: Db, storeId: string): Promise<string[]> {
  const rows = await db.query<{ hostname: string }>('SELECT hostname FROM store_hostnames WHERE store_id = $1 ORDER BY hostname', [storeId]);
  return rows.map((r) => r.hostname);
}

/**
 * Replaces the store's hostnames, in the caller's transaction. A name another store holds is
 * answered as `taken` (the caller refuses with 409 hostname_taken, which rolls the change back).
 */
export async function setStoreHostnames(
  db: Db,
  storeId: string,
  hostnames: readonly string[],
  now: Date,
): Promise<{ hostnames: string[]; taken?: string }> {
  const names = [...new Set(hostnames.map(hostKey))];
  await db.query('DELETE FROM store_hostnames WHERE store_id = $1 AND NOT (hostname = ANY($2::text[]))', [storeId, names]);
  await db.query(
    `INSERT INTO store_hostnames (hostname, store_id, created_at) SELECT h, $1, $3 FROM unnest($2::text[]) AS t(h)
     ON CONFLICT (hostname) DO UPDATE SET hostname = excluded.hostname WHERE store_hostnames.store_id = $1`,
    [storeId, names, now],
  );
  const mine = await storeHostnames(db, storeId);
  const taken = names.find((n) => !mine.includes(n));
  return taken ? { hostnames: mine, taken } : { hostnames: mine };
}
