import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import { containing, errors, scrubPersonalData } from '../../core/sdk';
import {
  checkMetadata,
  dateRangeFilters,
  jsonParam,
  listPage,
  mergeMetadata,
  metadataFilter,
  rowOr404,
  setClause,
  stamps,
  unique,
  type Row,
} from '../../core/sdk';
import type { Customer, CustomerCreate, CustomerQuery, CustomerUpdate } from './schemas';

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
        ctx.store.id,
        input.email,
        input.first_name ?? null,
        input.last_name ?? null,
        normalizePhone(input.phone) ?? null,
        input.accepts_marketing ?? false,
        jsonParam(uniqueTags(input.tags ?? [])),
        jsonParam(metadata),
        jsonParam(input.addresses ?? []),
        now,
      ],
    ),
    duplicateEmail(input.email),
  );
  const customer = toCustomer(row);
  ctx.emit('customer.created', customer);
  return customer;
}

/** Erased customers (delete_customer) are gone from every lookup, as deleted resources are (SPEC 7). */
export const customerRow = (ctx: Ctx, id: string, forUpdate = false) =>
  rowOr404(ctx.db, {
    table: 'customers',
    storeId: ctx.store.id,
    id,
    noun: 'customer',
    where: 'erased_at IS NULL',
    lock: forUpdate ? 'FOR UPDATE' : undefined,
  });

/** The text q searches: the expression of the trigram index customers_search (migration 002), exactly. */
const SEARCH_TEXT = "lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, ''))";

export const listCustomers = (ctx: Ctx, input: Static<typeof CustomerQuery>) =>
  listPage(
    ctx,
    {
      table: 'customers',
      path: '/customers',
      input,
      where: ['erased_at IS NULL'],
      filters: {
        // lower(email) matches the unique index expression, so the filter is an index lookup.
        'lower(email) = lower($)': input.email,
        [`${SEARCH_TEXT} LIKE $`]: input.q === undefined ? undefined : containing(input.q),
        ...metadataFilter(input.metadata),
        ...dateRangeFilters('created_at', input.created),
      },
    },
    (rows) => rows.map(toCustomer),
  );

/** Fields left out keep their value; null clears a nullable field; metadata merges (Stripe). */
export async function updateCustomer(ctx: Ctx, input: Static<typeof CustomerUpdate>) {
  const cur = await customerRow(ctx, input.id, true);
  const metadata = mergeMetadata(cur.metadata, input.metadata);
  const set = setClause(
    {
      email: input.email,
      first_name: input.first_name,
      last_name: input.last_name,
      phone: normalizePhone(input.phone),
      accepts_marketing: input.accepts_marketing,
      tags: input.tags && uniqueTags(input.tags),
      metadata,
      addresses: input.addresses,
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

/** What identifies the person in a customer's data: these strings are erased wherever copies of it were made. */
const IDENTIFYING = ['email', 'first_name', 'last_name', 'phone', 'name', 'company', 'line1', 'line2', 'postal_code'];

/** The identifying strings of a customer row: its fields, its addresses' lines and names, its metadata values. */
function personalValues(r: Row): string[] {
  const values = [r.email, r.first_name, r.last_name, r.phone];
  for (const a of (r.addresses ?? []) as Record<string, unknown>[]) for (const k of IDENTIFYING) values.push(a[k]);
  for (const v of Object.values((r.metadata ?? {}) as Record<string, unknown>)) values.push(v);
  return values.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

/**
 * Erasure (GDPR art. 17, CCPA): every personal field is scrubbed and the row stays, marked
 * erased_at, so orders keep their customer_id for the books. The live row is locked first: of
 * parallel erasures exactly one finds it (the others wait on its lock, then find it erased: 404).
 * In the same transaction the core scrubs the copies made earlier (stored webhook events, the
 * tool-call audit log, idempotent replays, agents' conversations): see README "Erasure".
 * Orders' own copies (addresses on an order) are the books' and stay.
 */
export async function eraseCustomer(ctx: Ctx, id: string) {
  const before = await customerRow(ctx, id, true);
  const now = ctx.clock.now();
  await ctx.db.query(
    `UPDATE customers SET email = NULL, first_name = NULL, last_name = NULL, phone = NULL, accepts_marketing = false,
       tags = '[]', metadata = '{}', addresses = '[]', enrichment = NULL, erased_at = $3, updated_at = $3
     WHERE store_id = $1 AND id = $2`,
    [ctx.store.id, before.id, now],
  );
  const scrubbed = await scrubPersonalData(
    ctx.db,
    ctx.store.id,
    {
      mentions: [before.id, before.email],
      values: personalValues(before),
      record: { object: 'customer', id: before.id, identifying: IDENTIFYING },
    },
    ctx.registry,
  );
  ctx.log.info('customer erased', { customer_id: before.id, scrubbed });
  const deleted = { object: 'customer' as const, id: before.id as string, deleted: true as const };
  ctx.emit('customer.deleted', deleted);
  return deleted;
}
