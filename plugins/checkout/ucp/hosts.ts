/**
 * Host -> store for the agentic endpoints. Interim, until the engine's hostnames (STORE/settings
 * `hostnames`) land: a store's claimed names are read from its agentic settings
 * (`checkout_settings.ucp.hostnames`), and an instance with a single store answers on any host.
 */
import type { Db, Store } from '../../../core/sdk';

export async function storeForHost(db: Db, host: string): Promise<Store | undefined> {
  const name = host.replace(/:\d+$/, '');
  const [claimed] = await db.query<Store>(
    `SELECT s.id, s.name, s.plan FROM checkout_settings c JOIN stores s ON s.id = c.store_id
     WHERE c.ucp->'hostnames' ? $1 OR c.ucp->'hostnames' ? $2 LIMIT 1`,
    [name, host],
  );
  if (claimed) return claimed;
  const only = await db.query<Store>('SELECT id, name, plan FROM stores LIMIT 2');
  return only.length === 1 ? only[0] : undefined;
}
