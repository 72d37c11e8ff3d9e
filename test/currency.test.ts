import { describe, expect, test } from 'bun:test';
import { openDb } from '../core/db';
import { migrate } from '../core/db/migrate';
import { allMigrations } from '../core/migrations';
import { allPlugins as plugins } from './kit/setup';
import { product, setup } from './kit/setup';

describe("currencies: ISO 4217 codes, amounts in the currency's minor unit", () => {
  test('a code that is not an ISO 4217 currency is 400 naming pricing_data.currency', async () => {
    const h = await setup();
    for (const currency of ['XYZ', 'XAU', 'usd']) {
      const r = await h.call('POST', '/products', product({ pricing_data: { retail: 5, currency } }));
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param: 'pricing_data.currency' });
      expect(r.body.error.message).toContain('ISO 4217');
    }
    const p = await h.call('POST', '/products', product());
    const patch = await h.call('PATCH', `/products/${p.body.id}`, { pricing_data: { currency: 'ABC' } });
    expect(patch.status).toBe(400);
    expect(patch.body.error.param).toBe('pricing_data.currency');
  });

  test('JPY and KRW take no decimals; KWD, BHD, OMR three; USD two', async () => {
    const h = await setup();
    const cases: [string, number, boolean][] = [
      ['JPY', 5.5, false],
      ['JPY', 500, true],
      ['KRW', 1000.1, false],
      ['KWD', 1.234, true],
      ['BHD', 1.2345, false],
      ['OMR', 0.005, true],
      ['USD', 1.234, false],
      ['EUR', 12.5, true],
      ['CLP', 990, true],
    ];
    for (const [currency, retail, ok] of cases) {
      const r = await h.call('POST', '/products', product({ pricing_data: { retail, currency } }));
      expect(r.status, `${currency} ${retail}`).toBe(ok ? 201 : 400);
      if (ok) expect(r.body.pricing_data).toMatchObject({ retail, currency });
      else {
        expect(r.body.error.param).toBe('pricing_data.retail');
        expect(r.body.error.message).toContain(currency);
      }
    }
    const compare = await h.call('POST', '/products', product({ pricing_data: { retail: 500, compare_at: 600.5, currency: 'JPY' } }));
    expect(compare.body.error.param).toBe('pricing_data.compare_at');
  });

  test("order totals are exact in the currency's minor unit", async () => {
    const h = await setup();
    const yen = (await h.call('POST', '/products', product({ pricing_data: { retail: 499, currency: 'JPY' }, stock_quantity: 10 }))).body;
    const dinar = (await h.call('POST', '/products', product({ pricing_data: { retail: 1.234, currency: 'KWD' }, stock_quantity: 10 }))).body;
    const a = await h.call('POST', '/orders', { line_items: [{ product_id: yen.id, quantity: 3 }] });
    expect(a.body).toMatchObject({ currency: 'JPY', total: 1497 });
    expect(a.body.line_items[0]).toMatchObject({ unit_price: 499, total: 1497 });
    const b = await h.call('POST', '/orders', { line_items: [{ product_id: dinar.id, quantity: 3 }] });
    expect(b.body).toMatchObject({ currency: 'KWD', total: 3.702 });
  });

  test('changing the currency keeps the price only when it fits the new minor unit', async () => {
    const h = await setup();
    const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 19.99 } }))).body;
    const refused = await h.call('PATCH', `/products/${p.id}`, { pricing_data: { currency: 'JPY' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('pricing_data.currency');
    expect((await h.call('GET', `/products/${p.id}`)).body.pricing_data).toMatchObject({ retail: 19.99, currency: 'USD' });
    const both = await h.call('PATCH', `/products/${p.id}`, { pricing_data: { currency: 'JPY', retail: 2000 } });
    expect(both.body.pricing_data).toMatchObject({ retail: 2000, currency: 'JPY' });
    const toKwd = await h.call('PATCH', `/products/${p.id}`, { pricing_data: { currency: 'KWD' } });
    expect(toKwd.status).toBe(200);
    expect(toKwd.body.pricing_data).toMatchObject({ retail: 2000, currency: 'KWD' });
  });

  test('rows stored before (hundredths whatever the currency) are rescaled once by the migration', async () => {
    const db = await openDb({});
    try {
      const all = allMigrations(plugins);
      // (and the stock columns' move to inventory, so rows can be written the old way)
      const later = new Set([
        'products/002_currency_minor_units',
        'orders/002_currency_minor_units',
        'inventory/004_totals_and_retired',
        'products/006_stock_in_inventory',
      ]);
      await migrate(
        db,
        all.filter((m) => !later.has(m.id)),
      );
      const [store] = await db.query("INSERT INTO stores (id, name, plan, created_at) VALUES (gen_random_uuid(), 'Old', 'pro', now()) RETURNING id");
      const old = async (currency: string, priceMinor: number) =>
        (
          await db.query(
            `INSERT INTO products (id, store_id, name, type, status, price_minor, currency, stock_quantity, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'simple', 'active', $3, $2, 0, now(), now()) RETURNING id`,
            [store.id, currency, priceMinor],
          )
        )[0].id;
      const ids = { JPY: await old('JPY', 50_000), KWD: await old('KWD', 123), USD: await old('USD', 1999) };
      const [order] = await db.query(
        `INSERT INTO orders (id, store_id, order_number, status, currency, total_minor, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, '1001', 'pending', 'JPY', 150000, now(), now()) RETURNING id`,
        [store.id],
      );
      await migrate(db, all);
      const price = async (id: string) => Number((await db.query('SELECT price_minor FROM products WHERE id = $1', [id]))[0].price_minor);
      expect([await price(ids.JPY), await price(ids.KWD), await price(ids.USD)]).toEqual([500, 1230, 1999]);
      expect(Number((await db.query('SELECT total_minor FROM orders WHERE id = $1', [order.id]))[0].total_minor)).toBe(1500);
      // Running the text again (a half-applied upgrade) changes nothing.
      for (const m of all.filter((m) => later.has(m.id))) await db.exec(m.sql);
      expect(await price(ids.JPY)).toBe(500);
    } finally {
      await db.close();
    }
  }, 60_000);
});
