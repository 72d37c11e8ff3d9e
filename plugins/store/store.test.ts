import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup } from '../../test/kit/setup';

describe('store', () => {
  test('get_store shows the defaults; update_settings changes only what is sent and null clears', async () => {
    const h = await setup();
    const before = (await h.call('GET', '/store')).body;
    expect(before).toMatchObject({ object: 'store', id: h.store.id, name: 'Test store', plan: 'pro' });
    expect(before.settings).toEqual({
      currency: 'USD',
      timezone: 'UTC',
      address: null,
      contact_email: null,
      website_url: null,
      order_number_prefix: '',
      invoice_prefix: 'INV-',
      prices_include_tax: false,
      phone_number: null,
      hostnames: [],
    });
    const address = { line1: '1 Main St', city: 'Berlin', postal_code: '10115', country: 'DE' };
    const r = await h.call('PATCH', '/settings', { name: 'Acme', currency: 'EUR', timezone: 'Europe/Berlin', address, contact_email: 'a@acme.test' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Acme', settings: { currency: 'EUR', timezone: 'Europe/Berlin', address, contact_email: 'a@acme.test' } });
    const again = await h.call('PATCH', '/settings', { prices_include_tax: true, contact_email: null, invoice_prefix: 'ACME-' });
    expect(again.body.settings).toMatchObject({ currency: 'EUR', address, contact_email: null, prices_include_tax: true, invoice_prefix: 'ACME-' });
    expect((await h.call('GET', '/store')).body).toEqual(again.body);
    // The name is the store's own (the core's stores row): a fresh read of it answers the new one.
    expect((await h.db.query('SELECT name FROM stores WHERE id = $1', [h.store.id]))[0].name).toBe('Acme');
  });

  test('a bad currency or timezone is 400 naming it, and changes nothing', async () => {
    const h = await setup();
    for (const [body, param] of [
      [{ currency: 'XYZ' }, 'currency'],
      [{ currency: 'usd' }, 'currency'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: '+01:00' }, 'timezone'],
      [{ address: { line1: 'x', city: 'y', country: 'de' } }, 'address.country'],
    ] as const) {
      const r = await h.call('PATCH', '/settings', { name: 'Changed', ...body });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    expect((await h.call('GET', '/store')).body).toMatchObject({ name: 'Test store', settings: { currency: 'USD', timezone: 'UTC' } });
  });

  test("new products take the store's currency unless they name one", async () => {
    const h = await setup();
    await h.call('PATCH', '/settings', { currency: 'JPY' });
    const yen = await h.call('POST', '/products', product({ pricing_data: { retail: 1200 } }));
    expect(yen.body.pricing_data).toMatchObject({ currency: 'JPY', retail: 1200 });
    const usd = await h.call('POST', '/products', product({ pricing_data: { retail: 9.99, currency: 'USD' } }));
    expect(usd.body.pricing_data.currency).toBe('USD');
  });

  test('update_settings emits store.settings_updated with the store', async () => {
    const h = await setup();
    await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/s', events: ['store.settings_updated'] });
    const s = (await h.call('PATCH', '/settings', { website_url: 'https://acme.test' })).body;
    const rows = await h.db.query('SELECT body FROM events WHERE store_id = $1', [h.store.id]);
    expect(rows.map((e) => JSON.parse(e.body))).toMatchObject([{ type: 'store.settings_updated', data: s }]);
  });

  test("get_plan answers the plan's limits as integers, over REST and MCP", async () => {
    const h = await setup({ plan: 'starter' });
    const plan = (await h.call('GET', '/plan')).body;
    expect(plan).toEqual({
      object: 'plan',
      name: 'starter',
      limits: {
        requests_per_minute: 600,
        burst_per_second: 50,
        emails_per_hour: 1000,
        workflow_runs_per_hour: 1000,
        media_upload_bytes: 50 * 1024 * 1024,
        media_storage_bytes: 10 * 1024 ** 3,
      },
    });
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'store', arguments: { action: 'get_plan' } });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toEqual(plan);
  });

  test('a key holding platform:read reads but cannot write; platform:write writes', async () => {
    const h = await setup();
    const read = { 'x-api-key': await h.newKey(['platform:read']) };
    expect((await h.call('GET', '/store', undefined, read)).status).toBe(200);
    expect((await h.call('PATCH', '/settings', { timezone: 'UTC' }, read)).status).toBe(403);
    const write = { 'x-api-key': await h.newKey(['platform:write']) };
    expect((await h.call('PATCH', '/settings', { timezone: 'Asia/Tokyo' }, write)).body.settings.timezone).toBe('Asia/Tokyo');
  });
});
