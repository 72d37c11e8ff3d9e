/**
 * Property tests of the REST contract (SPEC 2.1-2.3, 4.1, 7) for products and orders.
 *
 * Random and mutated request bodies and queries go to the write and list endpoints. Whatever is
 * sent, the answer must be one of the statuses the SPEC lists for that endpoint (never a 500),
 * every error must be exactly the SPEC 7 envelope, a 400 must name the offending field, and a
 * rejected request must leave the store exactly as it was.
 */
import { errorDef } from '../core/errors';
import { beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { product, setup, type Harness } from './kit/setup';

const RUNS = 100;
const PARAMS = { numRuns: RUNS };

type Res = Awaited<ReturnType<Harness['call']>>;

const TYPE_FOR_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  404: 'not_found_error',
  409: 'conflict_error',
};

/** The SPEC 7 envelope, exactly: no other keys, request_id echoed in X-Request-Id. */
function expectErrorEnvelope(res: Res) {
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
const plainKey = (k: string) => !k.includes('.');

interface Expectation {
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
function checkAnswer(res: Res, x: Expectation): boolean {
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
async function snapshot(h: Harness, storeIds: string[]) {
  const products = await h.db.query(
    `SELECT id, store_id, name, description, sku, type, status, price_minor::text AS price, compare_at_minor::text AS compare_at,
            currency, stock_quantity, created_at, updated_at, archived_at
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
async function world() {
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
    if (status !== 'pending') {
      const u = await h.call('PATCH', `/orders/${r.body.id}`, { status });
      if (u.status !== 200) throw new Error(`fixture order ${status}: ${JSON.stringify(u.body)}`);
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
type World = Awaited<ReturnType<typeof world>>;

/** Sends a request and, when it is rejected, checks that nothing in either store changed. */
async function probe(w: World, method: string, path: string, text: string | undefined, x: Expectation) {
  const before = await w.snap();
  const res = await w.h.call(method, path, text);
  const rejected = checkAnswer(res, x);
  if (rejected) expect(await w.snap()).toBe(before);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Generators

const DELETE = Symbol('delete');
type Mutation = { path: string; value: unknown; status: number; param: string | null; code?: string };

const randomUuid = fc.uuid({ version: 4 });
const anyJson = fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 });
const notString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
);
const notObject = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string(), fc.array(fc.integer(), { maxLength: 3 }));
const notInteger = fc.oneof(
  fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
  fc.integer().map(String),
  fc.boolean(),
  fc.constant(null),
  fc.constant([1]),
);
/** Strings that a text column cannot hold or a length limit forbids. */
const badText = (max: number, allowEmpty = false) =>
  fc.oneof(
    notString,
    fc.string({ minLength: max + 1, maxLength: max + 20 }),
    fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}\u0000${b}`),
    ...(allowEmpty ? [] : [fc.constant('')]),
  );
/** Money values the API must refuse: negative, more than two decimals, beyond 2^53 cents, wrong type. */
const badMoney = fc.oneof(
  fc.integer({ min: 1, max: 1_000_000_00 }).map((c) => -c / 100),
  fc
    .tuple(fc.integer({ min: 0, max: 1_000_000_00 }), fc.integer({ min: 1, max: 9 }))
    .map(([c, d]) => Number(`${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}${d}`)),
  fc.double({ min: 1e14, max: 1e300, noNaN: true }),
  fc.constantFrom('19.99', '', true, [19.99], { amount: 1 }, null),
);
const badStock = fc.oneof(fc.integer({ min: -1_000_000, max: -1 }), fc.integer({ min: 2_000_000_001, max: 2 ** 31 + 10 }), notInteger);
/** A field name no endpoint knows, reported under its own name. */
const extraKey = (known: string[]) =>
  fc
    .string({ minLength: 1, maxLength: 12, unit: 'binary' })
    .filter((k) => plainKey(k) && !k.includes('.') && !known.includes(k) && k !== 'id' && k !== '__proto__');
const otherString = (valid: string[]) =>
  fc.oneof(
    fc.string({ maxLength: 10 }).filter((s) => !valid.includes(s)),
    notString,
  );

/** Text bodies: mostly JSON built on the endpoint's own fields, some random JSON, some not JSON at all. */
const MALFORMED = [
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
function randomBodyText(shaped: fc.Arbitrary<Record<string, unknown>>) {
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
const anyOf = (keys: string[], special: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.record(Object.fromEntries(keys.map((k) => [k, special[k] ? fc.oneof(special[k], anyJson) : anyJson])), { requiredKeys: [] }) as fc.Arbitrary<
    Record<string, unknown>
  >;

function parsedBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function applyMutation(body: Record<string, any>, m: Mutation) {
  const out = structuredClone(body);
  const parts = m.path.split('.');
  let at: any = out;
  for (const p of parts.slice(0, -1)) at = at[p] ??= {};
  const last = parts[parts.length - 1];
  if (m.value === DELETE) delete at[last];
  else at[last] = m.value;
  return out;
}

// Product bodies

const PRODUCT_KEYS = ['name', 'sku', 'description', 'type', 'status', 'pricing_data', 'stock_quantity'];
const validPricing = fc.record(
  {
    retail: fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100),
    compare_at: fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100),
    currency: fc.constantFrom('USD', 'EUR', 'GBP'),
  },
  { requiredKeys: ['retail'] },
);
const validProduct = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 40 }),
    sku: fc.string({ minLength: 1, maxLength: 30 }).map((s) => `P-${s}`),
    description: fc.string({ maxLength: 60 }),
    type: fc.constantFrom('simple', 'digital'),
    status: fc.constantFrom('draft', 'active'),
    pricing_data: validPricing,
    stock_quantity: fc.integer({ min: 0, max: 2_000_000_000 }),
  },
  // pricing_data always present, so damage inside it is the only fault there.
  { requiredKeys: ['name', 'pricing_data'] },
);
const validProductPatch = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 40 }),
    description: fc.option(fc.string({ maxLength: 60 })),
    type: fc.constantFrom('simple', 'digital'),
    status: fc.constantFrom('draft', 'active'),
    pricing_data: fc.record(
      {
        retail: fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100),
        compare_at: fc.option(fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100)),
        currency: fc.constantFrom('USD', 'EUR'),
      },
      { requiredKeys: [] },
    ),
    stock_quantity: fc.integer({ min: 0, max: 2_000_000_000 }),
  },
  { requiredKeys: [] },
);

/** Single-field damage to a product body: [path, bad value], each a 400 naming exactly that path. */
function productMutations(create: boolean): fc.Arbitrary<Mutation> {
  const v400 = (path: string, value: fc.Arbitrary<unknown>) => value.map((v): Mutation => ({ path, value: v, status: 400, param: path }));
  const list = [
    v400('name', badText(500)),
    // null clears sku and description on PATCH, so it is only a fault on create.
    v400('sku', create ? badText(100) : badText(100).filter((v) => v !== null)),
    v400('description', create ? badText(20_000, true) : badText(20_000, true).filter((v) => v !== null)),
    v400('type', otherString(['simple', 'digital'])),
    v400('status', otherString(['draft', 'active'])),
    v400('pricing_data', notObject),
    v400('pricing_data.retail', badMoney),
    v400(
      'pricing_data.compare_at',
      badMoney.filter((v) => v !== null || create),
    ),
    v400('pricing_data.currency', fc.oneof(fc.constantFrom('usd', 'US', 'USDX', 'U$D', ''), notString)),
    v400('stock_quantity', badStock),
    extraKey(PRODUCT_KEYS).chain((k) => anyJson.map((v): Mutation => ({ path: k, value: v, status: 400, param: k }))),
    extraKey(['retail', 'compare_at', 'currency']).chain((k) =>
      anyJson.map((v): Mutation => ({ path: `pricing_data.${k}`, value: v, status: 400, param: `pricing_data.${k}` })),
    ),
  ];
  if (create) {
    list.push(fc.constant<Mutation>({ path: 'name', value: DELETE, status: 400, param: 'name' }));
    list.push(fc.constant<Mutation>({ path: 'pricing_data.retail', value: DELETE, status: 400, param: 'pricing_data.retail' }));
  }
  return fc.oneof(...list);
}

// Order bodies

const ORDER_KEYS = ['line_items', 'customer_id', 'payment_method'];

function orderArbs(w: World) {
  const ids = w.plenty.map((p) => p.id);
  const validOrder = fc
    .record(
      {
        line_items: fc
          .shuffledSubarray(ids, { minLength: 1 })
          .chain((chosen) => fc.tuple(...chosen.map((id) => fc.integer({ min: 1, max: 3 }).map((quantity) => ({ product_id: id, quantity }))))),
        customer_id: fc.constant(w.customer),
        payment_method: fc.constantFrom('card', 'cash', 'invoice'),
      },
      { requiredKeys: ['line_items'] },
    )
    .map((o) => o as Record<string, any>);

  const LINE_ITEM_FAULTS = (i: number): fc.Arbitrary<Mutation>[] => {
    const at = `line_items.${i}`;
    const pid = `${at}.product_id`;
    return [
      notObject.map((v) => ({ path: at, value: v, status: 400, param: at })),
      fc.constant({ path: pid, value: DELETE, status: 400, param: pid }),
      fc.oneof(fc.string({ maxLength: 40 }), notString).map((v) => ({ path: pid, value: v, status: 400, param: pid })),
      randomUuid.map((v) => ({ path: pid, value: v, status: 404, param: pid, code: 'resource_missing' })),
      fc.constantFrom(w.archived.id, w.foreign.id).map((v) => ({ path: pid, value: v, status: 404, param: pid })),
      fc.constant({ path: pid, value: w.draft.id, status: 400, param: pid }),
      fc.constant({ path: `${at}.quantity`, value: DELETE, status: 400, param: `${at}.quantity` }),
      fc.oneof(fc.integer({ min: -1000, max: 0 }), fc.integer({ min: 100_001, max: 2 ** 31 }), notInteger).map((v) => ({
        path: `${at}.quantity`,
        value: v,
        status: 400,
        param: `${at}.quantity`,
      })),
      extraKey(['product_id', 'quantity']).map((k) => ({ path: `${at}.${k}`, value: 1, status: 400, param: `${at}.${k}` })),
      // More than the 5 in stock: 409 insufficient_stock naming the line.
      fc
        .integer({ min: 6, max: 100_000 })
        .map((q) => ({ path: at, value: { product_id: w.scarce.id, quantity: q }, status: 409, param: pid, code: 'insufficient_stock' })),
      // 2^53-1 cents times 2 or more cannot be represented exactly: refused, not a wrong total or a 500.
      fc
        .integer({ min: 2, max: 50_000 })
        .map((q) => ({ path: at, value: { product_id: w.pricey.id, quantity: q }, status: 400, param: 'line_items' })),
    ];
  };

  const orderMutation = validOrder.chain((body) => {
    const n = body.line_items.length;
    const faults: fc.Arbitrary<Mutation>[] = [
      fc.constant({ path: 'line_items', value: DELETE, status: 400, param: 'line_items' }),
      fc
        .oneof(fc.string(), fc.constant([]), fc.integer(), fc.constant(null), fc.constant({}))
        .map((v) => ({ path: 'line_items', value: v, status: 400, param: 'line_items' })),
      fc.constant({
        path: 'line_items',
        value: Array.from({ length: 101 }, () => ({ product_id: w.plenty[0].id, quantity: 1 })),
        status: 400,
        param: 'line_items',
      }),
      badText(200).map((v) => ({ path: 'customer_id', value: v, status: 400, param: 'customer_id' })),
      fc
        .oneof(
          fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/\u0000|[\ud800-\udfff]/.test(s)),
          randomUuid,
          fc.constant(w.foreignCustomer),
        )
        .map((v) => ({
          path: 'customer_id',
          value: v,
          status: 404,
          param: 'customer_id',
          code: 'resource_missing',
        })),
      badText(50).map((v) => ({ path: 'payment_method', value: v, status: 400, param: 'payment_method' })),
      extraKey(ORDER_KEYS).map((k) => ({ path: k, value: 'x', status: 400, param: k })),
      ...Array.from({ length: n }, (_, i) => LINE_ITEM_FAULTS(i)).flat(),
    ];
    return fc.oneof(...faults).map((m) => ({ body, m }));
  });
  return { validOrder, orderMutation };
}

const ORDER_STATUSES = ['pending', 'paid', 'fulfilled', 'completed', 'cancelled'];

// ---------------------------------------------------------------------------------------------

describe('POST /products', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  test('random bodies: SPEC status, SPEC 7 envelope, a 400 names a sent or required field, rejection changes nothing', async () => {
    const shaped = anyOf(PRODUCT_KEYS, {
      pricing_data: anyOf(['retail', 'compare_at', 'currency']),
      sku: fc.constantFrom(w.plenty[0].sku, w.foreign.sku),
    });
    await fc.assert(
      fc.asyncProperty(randomBodyText(shaped), async (text) => {
        await probe(w, 'POST', '/products', text, { allowed: [201, 400, 409], sent: parsedBody(text), required: ['name'] });
      }),
      PARAMS,
    );
  });

  test('one damaged field of a valid body: 400 with param naming exactly that field, nothing stored', async () => {
    await fc.assert(
      fc.asyncProperty(validProduct, productMutations(true), async (body, m) => {
        const sent = applyMutation(body, m);
        await probe(w, 'POST', '/products', JSON.stringify(sent), { allowed: [400], sent, required: ['name'], exact: m });
      }),
      PARAMS,
    );
  });

  test('a valid body is stored as sent (201), and an existing SKU of this store is 409 duplicate_sku', async () => {
    await fc.assert(
      fc.asyncProperty(validProduct, fc.boolean(), async (body, clash) => {
        const sent = clash ? { ...body, sku: w.plenty[1].sku } : body;
        const res = await probe(w, 'POST', '/products', JSON.stringify(sent), {
          allowed: [201, 409],
          sent,
          exact: clash ? { status: 409, param: 'sku', code: 'duplicate_sku' } : undefined,
        });
        if (res.status === 201) {
          expect(res.body).toMatchObject({ object: 'product', name: sent.name, pricing_data: { retail: sent.pricing_data?.retail ?? 0 } });
          expect(res.body.stock_quantity).toBe(sent.stock_quantity ?? 0);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('PATCH /products/{id}', () => {
  let w: World;
  let targets: string[];
  beforeAll(async () => {
    w = await world();
    targets = [w.plenty[0].id, w.scarce.id, w.draft.id];
  });

  test('random bodies on live, archived, foreign and unknown ids', async () => {
    const shaped = anyOf(PRODUCT_KEYS, { pricing_data: anyOf(['retail', 'compare_at', 'currency']) });
    const id = fc.oneof(fc.constantFrom(w.plenty[2].id, w.draft.id, w.archived.id, w.foreign.id), randomUuid);
    await fc.assert(
      fc.asyncProperty(id, randomBodyText(shaped), async (pid, text) => {
        const res = await probe(w, 'PATCH', `/products/${pid}`, text, { allowed: [200, 400, 404, 409], sent: parsedBody(text) });
        if (res.status === 404) expect(res.body.error.param).toBe('id');
      }),
      PARAMS,
    );
  });

  test('one damaged field of a valid patch: 400 naming that field, product untouched', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), validProductPatch, productMutations(false), async (pid, body, m) => {
        const sent = applyMutation(body, m);
        await probe(w, 'PATCH', `/products/${pid}`, JSON.stringify(sent), { allowed: [400], sent, exact: m });
      }),
      PARAMS,
    );
  });

  test('a valid patch of an archived, foreign or unknown id is 404 param id; of a live one, changes what it names', async () => {
    const id = fc.oneof(fc.constantFrom(w.archived.id, w.foreign.id), randomUuid);
    await fc.assert(
      fc.asyncProperty(fc.option(id, { nil: undefined }), validProductPatch, async (missing, body) => {
        const pid = missing ?? w.plenty[1].id;
        const res = await probe(w, 'PATCH', `/products/${pid}`, JSON.stringify(body), {
          allowed: [200, 404],
          exact: missing ? { status: 404, param: 'id', code: 'resource_missing' } : { status: 200, param: undefined as any },
        });
        if (res.status === 200) {
          if (body.name !== undefined) expect(res.body.name).toBe(body.name);
          if (body.stock_quantity !== undefined) expect(res.body.stock_quantity).toBe(body.stock_quantity);
          if (body.pricing_data?.retail !== undefined) expect(res.body.pricing_data.retail).toBe(body.pricing_data.retail);
        }
      }),
      { numRuns: 60 },
    );
  });

  test("taking another live product's SKU is 409 duplicate_sku, SKUs of other stores are free", async () => {
    const res = await probe(w, 'PATCH', `/products/${w.plenty[0].id}`, JSON.stringify({ sku: w.scarce.sku }), {
      allowed: [409],
      exact: { status: 409, param: 'sku', code: 'duplicate_sku' },
    });
    expect(res.status).toBe(409);
    const ok = await w.h.call('PATCH', `/products/${w.plenty[0].id}`, { sku: w.foreign.sku });
    expect(ok.status).toBe(200);
    expect(ok.body.sku).toBe(w.foreign.sku);
  });
});

describe('POST /orders', () => {
  let w: World;
  let arbs: ReturnType<typeof orderArbs>;
  beforeAll(async () => {
    w = await world();
    arbs = orderArbs(w);
  });

  test('random bodies: SPEC status and envelope, faults name line_items.N, rejection changes nothing', async () => {
    const lineItem = anyOf(['product_id', 'quantity'], {
      product_id: fc.constantFrom(...[...w.plenty, w.scarce, w.draft, w.archived, w.foreign, w.pricey].map((p) => p.id)),
      quantity: fc.integer({ min: -2, max: 200_000 }),
    });
    const shaped = anyOf(ORDER_KEYS, { line_items: fc.array(fc.oneof(lineItem, anyJson), { maxLength: 4 }) });
    await fc.assert(
      fc.asyncProperty(randomBodyText(shaped), async (text) => {
        const sent = parsedBody(text);
        const res = await probe(w, 'POST', '/orders', text, { allowed: [201, 400, 404, 409], sent, required: ['line_items'] });
        if (res.status === 404 || res.status === 409) {
          // Missing products and short stock name the line at fault.
          expect(res.body.error.param).toMatch(/^line_items\.\d+\.product_id$/);
          const i = Number(res.body.error.param.split('.')[1]);
          expect(i).toBeLessThan((sent!.line_items as unknown[]).length);
        }
      }),
      PARAMS,
    );
  });

  test('one damaged field or line of a valid order: the exact status and param, no order, no stock taken', async () => {
    await fc.assert(
      fc.asyncProperty(arbs.orderMutation, async ({ body, m }) => {
        const sent = applyMutation(body, m);
        await probe(w, 'POST', '/orders', JSON.stringify(sent), { allowed: [400, 404, 409], sent, required: ['line_items'], exact: m });
      }),
      PARAMS,
    );
  });

  test('a valid order is 201 with the exact total in cents and takes exactly its stock', async () => {
    const price: Record<string, number> = { [w.plenty[0].id]: 1999, [w.plenty[1].id]: 10, [w.plenty[2].id]: 20 };
    await fc.assert(
      fc.asyncProperty(arbs.validOrder, async (body) => {
        const stockOf = async (id: string) => (await w.h.call('GET', `/products/${id}`)).body.stock_quantity as number;
        const before = await Promise.all(body.line_items.map((l: any) => stockOf(l.product_id)));
        const res = await probe(w, 'POST', '/orders', JSON.stringify(body), { allowed: [201] });
        const cents = body.line_items.reduce((s: number, l: any) => s + price[l.product_id] * l.quantity, 0);
        expect(res.body.total).toBe(cents / 100);
        expect(res.body.status).toBe('pending');
        const after = await Promise.all(body.line_items.map((l: any) => stockOf(l.product_id)));
        expect(after).toEqual(before.map((s, i) => s - body.line_items[i].quantity));
      }),
      { numRuns: 60 },
    );
  });
});

describe('PATCH /orders/{id} and POST /orders/{id}/cancel', () => {
  // Each test gets its own world: successful PATCHes and cancels move the fixture orders on.
  const orderIdOf = (w: World) =>
    fc.oneof(fc.constantFrom(...ORDER_STATUSES.map((s) => (w.orders as Record<string, string>)[s])), randomUuid, fc.constant(w.plenty[0].id));

  test('PATCH random bodies on orders in every state', async () => {
    const w = await world();
    const shaped = anyOf(['status', 'payment_method'], { status: fc.constantFrom(...ORDER_STATUSES, 'archived', 'PAID', '') });
    await fc.assert(
      fc.asyncProperty(orderIdOf(w), randomBodyText(shaped), async (id, text) => {
        const res = await probe(w, 'PATCH', `/orders/${id}`, text, { allowed: [200, 400, 404, 409], sent: parsedBody(text) });
        if (res.status === 404) expect(res.body.error.param).toBe('id');
        if (res.status === 409) expect(res.body.error).toMatchObject({ code: 'conflict_error', param: 'status' });
      }),
      PARAMS,
    );
  });

  test("PATCH with one damaged field: 400 naming it (404 for an id that is not this store's order), order untouched", async () => {
    const w = await world();
    const valid = fc.record({ status: fc.constantFrom(...ORDER_STATUSES), payment_method: fc.constantFrom('card', 'cash') }, { requiredKeys: [] });
    const fault = fc.oneof(
      otherString(ORDER_STATUSES).map((v): Mutation => ({ path: 'status', value: v, status: 400, param: 'status' })),
      badText(50).map((v): Mutation => ({ path: 'payment_method', value: v, status: 400, param: 'payment_method' })),
      extraKey(['status', 'payment_method']).map((k): Mutation => ({ path: k, value: 'paid', status: 400, param: k })),
    );
    await fc.assert(
      fc.asyncProperty(orderIdOf(w), valid, fault, async (id, body, m) => {
        const sent = applyMutation(body, m);
        // An id naming none of this store's orders is 404 whatever the body: ownership comes first.
        const known = Object.values(w.orders as Record<string, string>).includes(id);
        const exact = known ? m : { status: 404, param: 'id', code: 'resource_missing' };
        await probe(w, 'PATCH', `/orders/${id}`, JSON.stringify(sent), { allowed: [exact.status], sent, exact });
      }),
      PARAMS,
    );
  });

  test('PATCH to a state the lifecycle forbids is 409 conflict_error param status and changes nothing', async () => {
    const w = await world();
    // Expected lifecycle: pending -> paid -> fulfilled -> completed; cancel only before fulfilment.
    const forbidden: [string, string][] = [
      ['paid', 'pending'],
      ['fulfilled', 'pending'],
      ['fulfilled', 'paid'],
      ['fulfilled', 'cancelled'],
      ['completed', 'pending'],
      ['completed', 'paid'],
      ['completed', 'fulfilled'],
      ['completed', 'cancelled'],
      ['cancelled', 'pending'],
      ['cancelled', 'paid'],
      ['cancelled', 'fulfilled'],
      ['cancelled', 'completed'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...forbidden), fc.option(fc.constantFrom('card', 'cash'), { nil: undefined }), async ([from, to], pm) => {
        const id = (w.orders as Record<string, string>)[from];
        await probe(w, 'PATCH', `/orders/${id}`, JSON.stringify({ status: to, payment_method: pm }), {
          allowed: [409],
          exact: { status: 409, param: 'status', code: 'conflict_error' },
        });
      }),
      { numRuns: 60 },
    );
  });

  test('cancel with random bodies and ids: only the empty body may cancel, and only a pending or paid order', async () => {
    const w = await world();
    const shaped = anyOf(['reason', 'status', 'id']);
    await fc.assert(
      fc.asyncProperty(orderIdOf(w), randomBodyText(shaped), async (id, text) => {
        const sent = parsedBody(text);
        const state = (await w.h.call('GET', `/orders/${id}`)).body.status as string | undefined;
        const res = await probe(w, 'POST', `/orders/${id}/cancel`, text, { allowed: [200, 400, 404, 409], sent });
        if (res.status === 200) {
          expect(['pending', 'paid']).toContain(state!);
          expect(res.body.status).toBe('cancelled');
        }
        if (res.status === 404) expect(res.body.error.param).toBe('id');
        if (res.status === 409) expect(['fulfilled', 'completed', 'cancelled']).toContain(state!);
      }),
      PARAMS,
    );
  });
});

describe('GET /products?<query>', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  test('random queries: 200 list envelope honouring limit and status, or 400 naming a query parameter; nothing changes', async () => {
    const ids = [w.plenty[0].id, w.archived.id, w.foreign.id, w.orders.pending];
    const key = fc.oneof(
      { arbitrary: fc.constantFrom('limit', 'starting_after', 'ending_before', 'status'), weight: 6 },
      { arbitrary: fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }).filter(plainKey), weight: 1 },
    );
    const value = fc.oneof(
      fc.integer({ min: -5, max: 150 }).map(String),
      fc.constantFrom('draft', 'active', 'archived', 'ACTIVE', '', '1.5', '1e1', 'true', 'null', '10abc'),
      fc.constantFrom(...ids),
      randomUuid,
      fc.string({ maxLength: 12, unit: 'binary' }),
    );
    const query = fc.oneof(
      { arbitrary: fc.array(fc.tuple(key, value), { maxLength: 4 }).map((pairs) => new URLSearchParams(pairs).toString()), weight: 5 },
      {
        arbitrary: fc.string({ maxLength: 30, unit: 'binary' }).map((s) => encodeURI(s.replace(/[\ud800-\udfff]/g, '')).replaceAll('#', '%23')),
        weight: 1,
      },
    );
    await fc.assert(
      fc.asyncProperty(query, async (qs) => {
        const params = new URLSearchParams(qs);
        const sent = Object.fromEntries(params);
        const before = await w.snap();
        const res = await w.h.call('GET', `/products?${qs}`);
        expect(await w.snap()).toBe(before);
        checkAnswer(res, { allowed: [200, 400], sent });
        if (res.status === 200) {
          expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'object', 'url']);
          expect(res.body).toMatchObject({ object: 'list', url: `/v1/stores/${w.h.store.id}/products` });
          expect(typeof res.body.has_more).toBe('boolean');
          // (The query converter also reads limit=true as 1 and limit=1e1 as 10; see report.)
          const limit = Number(sent.limit ?? 10);
          expect(res.body.data.length).toBeLessThanOrEqual(Number.isInteger(limit) ? limit : 100);
          for (const p of res.body.data) {
            expect(p.object).toBe('product');
            expect(p.id).not.toBe(w.foreign.id);
            // Archived products appear only when asked for.
            if (sent.status) expect(p.status).toBe(sent.status);
            else expect(p.status).not.toBe('archived');
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('unknown fields with unusual names', () => {
  // The validator reports a JSON pointer ("a~1b" for "a/b"); invoke unescapes it, so the field is named as sent.
  test('an unknown field named "a/b" or "" is reported under its own name', async () => {
    const h = await setup();
    for (const key of ['a/b', '']) {
      const res = await h.call('POST', '/products', { name: 'x', [key]: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(key);
    }
  });
});
