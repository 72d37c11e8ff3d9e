import { existingIds, type Db } from '../../core/sdk';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What other plugins may use of customers. The id of this store's customer `id`, as stored
 * (canonical lower case), or undefined when there is none: an id of another store's customer, a
 * malformed id and an unknown one all name no customer here.
 */
export async function customerIdIn(db: Db, storeId: string, id: string): Promise<string | undefined> {
  if (!UUID.test(id)) return undefined;
  const [row] = await db.query<{ id: string }>('SELECT id FROM customers WHERE store_id = $1 AND id = $2', [storeId, id]);
  return row?.id;
}

/** Which of `ids` are customers of the store (erased ones are not): the standard existence check. */
export const customersIn = (db: Db, storeId: string, ids: readonly string[]) =>
  existingIds(db, { table: 'customers', storeId, ids, where: 'erased_at IS NULL' });

/** This store's customer with this email (any case), or undefined: the shared inbox matches mail senders to customers. */
export async function customerIdByEmail(db: Db, storeId: string, email: string): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(
    'SELECT id FROM customers WHERE store_id = $1 AND lower(email) = lower($2) AND erased_at IS NULL LIMIT 1',
    [storeId, email],
  );
  return row?.id;
}

/** Whether `id` could name a customer at all (a UUID): another names none here, and would not cast. */
export const isCustomerId = (id: string) => UUID.test(id);

/**
 * This store's customer `id` with the tags wholesale reads as customer groups (none once erased),
 * as SQL for a statement that reads it with other things (orders' first read): one row `id, tags`
 * (text[]), or none. `store` and `id` are placeholders; check the id with isCustomerId first.
 */
export const customerGroupsSql = (store: string, id: string) =>
  `SELECT id, CASE WHEN erased_at IS NULL THEN ARRAY(SELECT jsonb_array_elements_text(tags)) ELSE '{}'::text[] END AS tags
   FROM customers WHERE store_id = ${store} AND id = ${id}::uuid`;

/** This store's customer with this phone number (digits compared, so `+1 555-123` matches `+1555123`), or undefined: phone's SMS conversations. */
export async function customerIdByPhone(db: Db, storeId: string, phone: string): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(
    `SELECT id FROM customers WHERE store_id = $1 AND regexp_replace(phone, '[^0-9]', '', 'g') = regexp_replace($2, '[^0-9]', '', 'g')
       AND erased_at IS NULL ORDER BY created_at LIMIT 1`,
    [storeId, phone],
  );
  return row?.id;
}

/**
 * The store's live customers as an SQL source (`FROM ${customersSource('$1')} c`), for plugins that
 * select customers by rules in their own statement (segments); `store` is the placeholder of the
 * store id. Columns: id, store_id, seq, email, first_name, last_name, tags, accepts_marketing, metadata, created_at.
 */
export const customersSource = (store: string) =>
  `(SELECT id, store_id, seq, email, first_name, last_name, tags, accepts_marketing, metadata, created_at FROM customers WHERE store_id = ${store} AND erased_at IS NULL)`;
