import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { jsonParam, listPage, rowOr404, setClause, stamps, unique, type Row } from '../../core/sdk';
import { METADATA_KEY_MAX, METADATA_MAX_KEYS, type Customer, type CustomerCreate, type CustomerQuery, type CustomerUpdate } from './schemas';

export function toCustomer(r: Row): Static<typeof Customer> {
  return {
    object: 'customer',
    id: r.id,
    email: r.email,
    first_name: r.first_name,
    last_name: r.last_name,
    phone: r.phone,
    accepts_marketing: r.accepts_marketing,
    tags: r.tags,
    metadata: r.metadata,
    addresses: r.addresses,
    enrichment: r.enrichment ?? null,
    ...stamps(r),
  };
}

/** The schema accepts the separators people type; the stored form is bare E.164. */
const normalizePhone = (p: string | null | undefined) => (p == null ? p : `+${p.replace(/\D/g, '')}`);

/** Shopify-like: a tag given twice is kept once, in first-seen order. */
const uniqueTags = (tags: string[]) => [...new Set(tags)];

/**
 * Key rules the JSON schema cannot say with a helpful message: 1-40 characters, no U+0000 (jsonb
 * refuses it), and at most 50 keys after an update's merge.
 */
function checkMetadata(metadata: Record<string, unknown>) {
  const keys = Object.keys(metadata);
  for (const key of keys)
    if (key.length < 1 || key.length > METADATA_KEY_MAX || /[\u0000\ud800-\udfff]/.test(key))
      throw errors.validation(`Invalid metadata: keys must be 1 to ${METADATA_KEY_MAX} characters of plain text.`, 'metadata');
  if (keys.length > METADATA_MAX_KEYS) throw errors.validation(`Invalid metadata: at most ${METADATA_MAX_KEYS} keys.`, 'metadata');
}

/** Emails are unique per store, compared case-insensitively (index customers_store_email). */
const duplicateEmail = (email: string) => ({
  customers_store_email: () => errors.conflict(`A customer with email '${email}' already exists in this store.`, 'duplicate_email', 'email'),
});

export async function createCustomer(ctx: Ctx, input: Static<typeof CustomerCreate>) {
  const metadata = input.metadata ?? {};
  checkMetadata(metadata);
  const now = ctx.clock.now();
  const [row] = await unique(
    ctx.db.query(
      `INSERT INTO customers (id, store_id, email, first_name, last_name, phone, accepts_marketing, tags, metadata, addresses, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb, $9::text::jsonb, $10, $10) RETURNING *`,
      [
        ctx.store.id, input.email, input.first_name ?? null, input.last_name ?? null, normalizePhone(input.phone) ?? null,
        input.accepts_marketing ?? false, jsonParam(uniqueTags(input.tags ?? [])), jsonParam(metadata), jsonParam(input.addresses ?? []), now,
      ],
    ),
    duplicateEmail(input.email),
  );
  const customer = toCustomer(row);
  ctx.emit('customer.created', customer);
  return customer;
}

export const customerRow = (ctx: Ctx, id: string, forUpdate = false) =>
  rowOr404(ctx.db, { table: 'customers', storeId: ctx.store.id, id, noun: 'customer', lock: forUpdate ? 'FOR UPDATE' : undefined });

export const listCustomers = (ctx: Ctx, input: Static<typeof CustomerQuery>) =>
  // lower(email) matches the unique index expression, so the filter is an index lookup.
  listPage(ctx, { table: 'customers', path: '/customers', input, filters: { 'lower(email) = lower($)': input.email } }, (rows) =>
    rows.map(toCustomer),
  );

/** Fields left out keep their value; null clears a nullable field; metadata merges (Stripe). */
export async function updateCustomer(ctx: Ctx, input: Static<typeof CustomerUpdate>) {
  const cur = await customerRow(ctx, input.id, true);
  const metadata: Record<string, string> = { ...cur.metadata };
  for (const [key, value] of Object.entries(input.metadata ?? {})) {
    if (value === null || value === '') delete metadata[key];
    else metadata[key] = value;
  }
  checkMetadata(metadata);
  const set = setClause(
    {
      email: input.email, first_name: input.first_name, last_name: input.last_name, phone: normalizePhone(input.phone),
      accepts_marketing: input.accepts_marketing, tags: input.tags && uniqueTags(input.tags), metadata, addresses: input.addresses,
      updated_at: ctx.clock.now(),
    },
    { json: ['tags', 'metadata', 'addresses'], after: 2 },
  );
  const [row] = await unique(
    ctx.db.query(`UPDATE customers SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [ctx.store.id, cur.id, ...set.params]),
    duplicateEmail(input.email ?? cur.email),
  );
  const customer = toCustomer(row);
  ctx.emit('customer.updated', customer);
  return customer;
}
