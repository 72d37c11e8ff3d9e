/** Property tests of the REST contract (SPEC 2.1-2.3, 4.1, 7) for products: see test/kit/property.ts. */
import { beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { setup } from '../../test/kit/setup';
import {
  anyJson,
  anyOf,
  applyMutation,
  badMoney,
  badStock,
  badText,
  checkAnswer,
  DELETE,
  extraKey,
  notObject,
  notString,
  otherString,
  PARAMS,
  parsedBody,
  plainKey,
  probe,
  randomBodyText,
  randomUuid,
  world,
  type Mutation,
  type World,
} from '../../test/kit/property';

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
