/**
 * Property tests of the REST contract (SPEC 2.1-2.3, 4.1, 7), shared by the products and orders
 * plugins' property tests (plugins/{products,orders}/property.test.ts).
 *
 * Random and mutated request bodies and queries go to the write and list endpoints. Whatever is
 * sent, the answer must be one of the statuses the SPEC lists for that endpoint (never a 500),
 * every error must be exactly the SPEC 7 envelope, a 400 must name the offending field, and a
 * rejected request must leave the store exactly as it was.
 */
import { expect } from 'bun:test';
import fc from 'fast-check';
import { errorDef } from '../../core/errors';
import { product, setup, type Harness } from './setup';

export const RUNS = 100;
export const PARAMS = { numRuns: RUNS };

export type Res = Awaited<ReturnType<Harness['call']>>;

export const TYPE_FOR_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  404: 'not_found_error',
  409: 'conflict_error',
};

/** The SPEC 7 envelope, exactly: no other keys, request_id echoed in X-Request-Id. */
export function expectErrorEnvelope(res: Res) {
  expect(res.body).toBeObject();
  expect(Object.keys(res.body)).toEqual(['error']);
  const e = res.body.error;
  expect(Object.keys(e).sort()).toEqual(['code', 'message', 'param', 'request_id', 'type']);
  expect(e.type).toBe(TYPE_FOR_STATUS[res.status]);
  // Every code is in the error table, which fixes its status.
  expect(errorDef(e.code)?.status).toBe(res.status);
  expect(typeof e.message).toBe('string');
  expect(e.message.length).toBeGreaterThan(0);
  expect(e.param === null || typeof e.param === 'string').toBe(true);
  expect(typeof e.request_id).toBe('string');
  expect(e.request_id.length).toBeGreaterThan(0);
  expect(e.request_id).toBe(res.headers.get('x-request-id'));
}

/** Top-level keys whose param name is unambiguous: a dot would read as a nested path. */
export const plainKey = (k: string) => !k.includes('.');

export interface Expectation {
  /** Statuses this endpoint may answer with (SPEC 4.1, 7). */
  allowed: number[];
  /** What the server parsed, when the body was a JSON object. */
  sent?: Record<string, unknown>;
  /** Fields a 400 may name although absent from the body (required fields). */
  required?: string[];
  /** When the request is known to be wrong in exactly one place. */
  exact?: { status: number; param: string | null; code?: string };
}

/** The checks every answer must pass; returns whether the request was rejected. */
export function checkAnswer(res: Res, x: Expectation): boolean {
  if (!x.allowed.includes(res.status)) throw new Error(`status ${res.status} not in [${x.allowed}]: ${JSON.stringify(res.body)}`);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  if (x.exact) {
    expect({ status: res.status, param: res.body?.error?.param }).toEqual({ status: x.exact.status, param: x.exact.param });
    if (x.exact.code) expect(res.body.error.code).toBe(x.exact.code);
  }
  if (res.status < 300) return false;
  expectErrorEnvelope(res);
  const param: string | null = res.body.error.param;
  if (res.status === 400 && x.sent && Object.keys(x.sent).every(plainKey)) {
    // A JSON object was sent, so some field of it (or a required one it lacks) is at fault.
    expect(param).toBeString();
    const root = param!.split('.')[0];
    expect([...Object.keys(x.sent), ...(x.required ?? [])]).toContain(root);
    // A path into line_items points at an item that exists.
    const m = /^line_items\.(\d+)/.exec(param!);
    if (m && Array.isArray(x.sent.line_items)) expect(Number(m[1])).toBeLessThan(x.sent.line_items.length);
  }
  return true;
}

/** Everything a request could change: both stores' products (with stock), orders, line items, order counter. */
export async function snapshot(h: Harness, storeIds: string[]) {
  const products = await h.db.query(
    `SELECT id, store_id, name, description, sku, type, status, price_minor::text AS price, compare_at_minor::text AS compare_at,
            currency, (SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels l WHERE l.product_id = products.id) AS stock_quantity,
            created_at, updated_at, archived_at
     FROM products WHERE store_id = ANY($1::uuid[]) ORDER BY seq`,
    [storeIds],
  );
  const orders = await h.db.query(
    `SELECT id, status, total_minor::text AS total, customer_id, payment_method, updated_at, cancelled_at
     FROM orders WHERE store_id = ANY($1::uuid[]) ORDER BY seq`,
    [storeIds],
  );
  const items = await h.db.query(
    'SELECT order_id, product_id, quantity FROM order_line_items WHERE store_id = ANY($1::uuid[]) ORDER BY order_id, position',
    [storeIds],
  );
  const counters = await h.db.query('SELECT id, next_order_number FROM stores WHERE id = ANY($1::uuid[]) ORDER BY id', [storeIds]);
  return JSON.stringify({ products, orders, items, counters });
}

/** A store with products and orders in every state, plus a second store to trespass on. */
export async function world() {
  const h = await setup();
  const other = await setup();
  const mk = async (hh: Harness, over: Record<string, unknown>) => {
    const r = await hh.call('POST', '/products', product(over));
    if (r.status !== 201) throw new Error(`fixture product: ${JSON.stringify(r.body)}`);
    return r.body as { id: string; sku: string };
  };
  const plenty = [
    await mk(h, { name: 'Plenty A', pricing_data: { retail: 19.99 }, stock_quantity: 2_000_000_000 }),
    await mk(h, { name: 'Plenty B', pricing_data: { retail: 0.1 }, stock_quantity: 2_000_000_000 }),
    await mk(h, { name: 'Plenty C', pricing_data: { retail: 0.2 }, stock_quantity: 2_000_000_000 }),
  ];
  const scarce = await mk(h, { name: 'Scarce', stock_quantity: 5 });
  const draft = await mk(h, { name: 'Draft', status: 'draft', stock_quantity: 100 });
  const archived = await mk(h, { name: 'Archived', stock_quantity: 100 });
  expect((await h.call('DELETE', `/products/${archived.id}`)).status).toBe(200);
  // The largest price toMinor accepts: 2^53 - 1 cents.
  const pricey = await mk(h, { name: 'Pricey', pricing_data: { retail: 90071992547409.91 }, stock_quantity: 100_000 });
  const foreign = await mk(other, { name: 'Foreign', stock_quantity: 100 });

  const order = async (status: string) => {
    const r = await h.call('POST', '/orders', { line_items: [{ product_id: plenty[0].id, quantity: 1 }], payment_method: 'card' });
    if (r.status !== 201) throw new Error(`fixture order: ${JSON.stringify(r.body)}`);
    // Only a paid order ships: fulfilled goes through paid.
    for (const s of status === 'fulfilled' ? ['paid', 'fulfilled'] : status !== 'pending' ? [status] : []) {
      const u = await h.call('PATCH', `/orders/${r.body.id}`, { status: s });
      if (u.status !== 200) throw new Error(`fixture order ${s}: ${JSON.stringify(u.body)}`);
    }
    return r.body.id as string;
  };
  const orders = {
    pending: await order('pending'),
    paid: await order('paid'),
    fulfilled: await order('fulfilled'),
    completed: await order('completed'),
    cancelled: await order('cancelled'),
  };
  const customer = (await h.call('POST', '/customers', { email: 'buyer@example.com' })).body.id as string;
  const foreignCustomer = (await other.call('POST', '/customers', { email: 'buyer@example.com' })).body.id as string;
  const stores = [h.store.id, other.store.id];
  return { h, other, customer, foreignCustomer, plenty, scarce, draft, archived, pricey, foreign, orders, snap: () => snapshot(h, stores) };
}
export type World = Awaited<ReturnType<typeof world>>;

/** Sends a request and, when it is rejected, checks that nothing in either store changed. */
export async function probe(w: World, method: string, path: string, text: string | undefined, x: Expectation) {
  const before = await w.snap();
  const res = await w.h.call(method, path, text);
  const rejected = checkAnswer(res, x);
  if (rejected) expect(await w.snap()).toBe(before);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Generators

export const DELETE = Symbol('delete');
export type Mutation = { path: string; value: unknown; status: number; param: string | null; code?: string };

export const randomUuid = fc.uuid({ version: 4 });
export const anyJson = fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 });
export const notString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
);
export const notObject = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string(), fc.array(fc.integer(), { maxLength: 3 }));
export const notInteger = fc.oneof(
  fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
  fc.integer().map(String),
  fc.boolean(),
  fc.constant(null),
  fc.constant([1]),
);
/** Strings that a text column cannot hold or a length limit forbids. */
export const badText = (max: number, allowEmpty = false) =>
  fc.oneof(
    notString,
    fc.string({ minLength: max + 1, maxLength: max + 20 }),
    fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}\u0000${b}`),
    ...(allowEmpty ? [] : [fc.constant('')]),
  );
/** Money values the API must refuse: negative, more than two decimals, beyond 2^53 cents, wrong type. */
export const badMoney = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000_00 }).map((c) => -c / 100),
  fc
    .tuple(fc.integer({ min: 0, max: 1_000_000_00 }), fc.integer({ min: 1, max: 9 }))
    .map(([c, d]) => Number(`${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}${d}`)),
  fc.double({ min: 1e14, max: 1e300, noNaN: true }),
  fc.constantFrom('19.99', '', true, [19.99], { amount: 1 }, null),
);
export const badStock = fc.oneof(fc.integer({ min: -1_000_000, max: -1 }), fc.integer({ min: 2_000_000_001, max: 2 ** 31 + 10 }), notInteger);
/** A field name no endpoint knows, reported under its own name. */
export const extraKey = (known: string[]) =>
  fc
    .string({ minLength: 1, maxLength: 12, unit: 'binary' })
    .filter((k) => plainKey(k) && !k.includes('.') && !known.includes(k) && k !== 'id' && k !== '__proto__');
export const otherString = (valid: string[]) =>
  fc.oneof(
    fc.string({ maxLength: 10 }).filter((s) => !valid.includes(s)),
    notString,
  );

/** Text bodies: mostly JSON built on the endpoint's own fields, some random JSON, some not JSON at all. */
export const MALFORMED = [
  '{',
  '}',
  '{"name":',
  '{"name":"x",}',
  "{'name':'x'}",
  'nul',
  'NaN',
  '[1,2',
  '{"a":1}{"b":2}',
  '\u0000',
  '{"pricing_data":{"retail":1e400}}',
  '{"line_items":[{"quantity":1e999}]}',
  '{"__proto__":{"name":"x"},"name":"y"}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"name":"a","name":"b"}',
  '\ufeff{"name":"bom"}',
];
export function randomBodyText(shaped: fc.Arbitrary<Record<string, unknown>>) {
  const shapedText = shaped.map((o) => JSON.stringify(o));
  return fc.oneof(
    { arbitrary: shapedText, weight: 5 },
    {
      arbitrary: fc.object({ key: fc.string({ maxLength: 8, unit: 'binary' }), maxDepth: 2, stringUnit: 'binary' }).map((o) => JSON.stringify(o)),
      weight: 2,
    },
    { arbitrary: fc.jsonValue({ stringUnit: 'binary', maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 1 },
    { arbitrary: fc.constantFrom('', ' ', '\n', ...MALFORMED), weight: 1 },
    { arbitrary: shapedText.chain((t) => fc.nat(t.length).map((n) => t.slice(0, n))), weight: 1 },
  );
}

/** Known fields with anything as values (each field present or not). */
export const anyOf = (keys: string[], special: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.record(Object.fromEntries(keys.map((k) => [k, special[k] ? fc.oneof(special[k], anyJson) : anyJson])), { requiredKeys: [] }) as fc.Arbitrary<
    Record<string, unknown>
  >;

export function parsedBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function applyMutation(body: Record<string, any>, m: Mutation) {
  const out = structuredClone(body);
  const parts = m.path.split('.');
  let at: any = out;
  for (const p of parts.slice(0, -1)) at = at[p] ??= {};
  const last = parts[parts.length - 1];
  if (m.value === DELETE) delete at[last];
  else at[last] = m.value;
  return out;
}
