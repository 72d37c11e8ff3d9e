import type { Static } from '@sinclair/typebox';
import { iso } from '../../core/sdk';
import type { Ctx } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { isUniqueViolation } from '../../core/sdk';
import { page } from '../../core/sdk';
import { METADATA_KEY_MAX, METADATA_MAX_KEYS, type Customer, type CustomerCreate, type CustomerQuery, type CustomerUpdate } from './schemas';

type Row = Record<string, any>;


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
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
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

const duplicateEmail = (email: string) =>
  errors.conflict(`A customer with email '${email}' already exists in this store.`, 'duplicate_email', 'email');

/** jsonb parameters go in as text and are cast, so both drivers see one plain string. */
const asJson = (v: unknown) => JSON.stringify(v);

export async function createCustomer(ctx: Ctx, input: Static<typeof CustomerCreate>) {
  const metadata = input.metadata ?? {};
  checkMetadata(metadata);
  const now = ctx.clock.now();
  try {
    const [row] = await ctx.db.query(
      `INSERT INTO customers (id, store_id, email, first_name, last_name, phone, accepts_marketing, tags, metadata, addresses, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb, $9::text::jsonb, $10, $10) RETURNING *`,
      [
        ctx.store.id, input.email, input.first_name ?? null, input.last_name ?? null, normalizePhone(input.phone) ?? null,
        input.accepts_marketing ?? false, asJson(uniqueTags(input.tags ?? [])), asJson(metadata), asJson(input.addresses ?? []), now,
      ],
    );
    const customer = toCustomer(row);
    ctx.emit('customer.created', customer);
    return customer;
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateEmail(input.email);
    throw err;
  }
}

export async function customerRow(ctx: Ctx, id: string, forUpdate = false): Promise<Row> {
  const [row] = await ctx.db.query(`SELECT * FROM customers WHERE store_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    ctx.store.id,
    id,
  ]);
  if (!row) throw errors.notFound(`customer: '${id}'`, 'id');
  return row;
}

export async function listCustomers(ctx: Ctx, input: Static<typeof CustomerQuery>) {
  const where: string[] = [];
  const params: unknown[] = [];
  if (input.email !== undefined) {
    params.push(input.email);
    // Matches the unique index expression, so the filter is an index lookup.
    where.push('lower(email) = lower($2)');
  }
  const { rows, has_more } = await page<Row>(ctx.db, { table: 'customers', storeId: ctx.store.id, where, params, input });
  return { object: 'list' as const, data: rows.map(toCustomer), has_more, url: `${ctx.storePath}/customers` };
}

/** Fields left out keep their value; null clears a nullable field; metadata merges (Stripe). */
export async function updateCustomer(ctx: Ctx, input: Static<typeof CustomerUpdate>) {
  const cur = await customerRow(ctx, input.id, true);
  const metadata: Record<string, string> = { ...cur.metadata };
  for (const [key, value] of Object.entries(input.metadata ?? {})) {
    if (value === null || value === '') delete metadata[key];
    else metadata[key] = value;
  }
  checkMetadata(metadata);
  const keep = <T>(v: T | undefined, old: T) => (v === undefined ? old : v);
  const email = input.email ?? cur.email;
  try {
    const [row] = await ctx.db.query(
      `UPDATE customers SET email = $3, first_name = $4, last_name = $5, phone = $6, accepts_marketing = $7,
         tags = $8::text::jsonb, metadata = $9::text::jsonb, addresses = $10::text::jsonb, updated_at = $11
       WHERE store_id = $1 AND id = $2 RETURNING *`,
      [
        ctx.store.id, cur.id, email, keep(input.first_name, cur.first_name), keep(input.last_name, cur.last_name),
        input.phone === undefined ? cur.phone : normalizePhone(input.phone), input.accepts_marketing ?? cur.accepts_marketing,
        asJson(input.tags ? uniqueTags(input.tags) : cur.tags), asJson(metadata), asJson(input.addresses ?? cur.addresses), ctx.clock.now(),
      ],
    );
    const customer = toCustomer(row);
    ctx.emit('customer.updated', customer);
    return customer;
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateEmail(email);
    throw err;
  }
}
