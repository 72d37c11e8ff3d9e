import { describe, expect, test } from 'bun:test';
import { backend } from '../../test/kit/db';
import { defaultLocationId, item, mkLocation, mkProduct } from '../../test/kit/inventory';
import { mcpClient } from '../../test/kit/mcp';
import { setup, type Harness } from '../../test/kit/setup';
import { inboundSignature as shipmentSignature } from '../../core/sdk';

const SECRET = 'carrier-secret-for-tests';

async function po(h: Harness, lines: { product_id: string; quantity: number; unit_cost: number }[], extra: object = {}) {
  const s = await h.call('POST', '/suppliers', { name: 'Acme Wholesale', email: 'orders@acme.test' });
  expect(s.status).toBe(201);
  const r = await h.call('POST', '/purchase-orders', { supplier_id: s.body.id, line_items: lines, ...extra });
  expect(r.status).toBe(201);
  return r.body;
}
const qtyAt = async (h: Harness, productId: string, location: string) =>
  (await item(h, productId)).levels.find((l) => l.location_id === location)?.quantity ?? 0;

/** A carrier's report, signed with `secret` at the harness's clock. */
async function report(h: Harness, body: object, secret = SECRET) {
  const ts = String(Math.floor(h.clock.now().getTime() / 1000));
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const res = await h.app.handle(
    new Request('http://svc.test/v1/inbound/shipments', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-timestamp': ts, 'x-svc-signature': shipmentSignature(secret, ts, bytes) },
      body: bytes,
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

describe('supply_chain', () => {
  test('a PO goes draft, sent, partially_received, received; stock arrives at the default location with one inventory.adjusted per product', async () => {
    const h = await setup();
    const a = await mkProduct(h, { stock_quantity: 0 });
    const b = await mkProduct(h, { stock_quantity: 0 });
    const as = { 'x-api-key': await h.newKey(['inventory:write']) };
    const made = await po(h, [
      { product_id: a.id, quantity: 10, unit_cost: 2.5 },
      { product_id: b.id, quantity: 4, unit_cost: 10 },
      { product_id: a.id, quantity: 2, unit_cost: 2.5 },
    ]);
    expect(made).toMatchObject({ status: 'draft', total: 70, location_id: null });
    const [la, lb, la2] = made.line_items.map((l: any) => l.id);
    // Not sent yet: nothing can be received.
    const early = await h.call('POST', `/purchase-orders/${made.id}/receive`, { line_items: [{ line_item_id: la, quantity: 1 }] }, as);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('invalid_po_status');
    expect((await h.call('POST', `/purchase-orders/${made.id}/send`, {}, as)).body.status).toBe('sent');
    expect((await h.call('POST', `/purchase-orders/${made.id}/send`, {}, as)).status).toBe(409);

    await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/inv', events: ['inventory.adjusted'] });
    const part = await h.call(
      'POST',
      `/purchase-orders/${made.id}/receive`,
      {
        line_items: [
          { line_item_id: la, quantity: 6 },
          { line_item_id: la2, quantity: 2 },
          { line_item_id: lb, quantity: 1 },
        ],
      },
      as,
    );
    expect(part.status).toBe(200);
    expect(part.body.status).toBe('partially_received');
    expect(part.body.line_items.map((l: any) => l.received_quantity)).toEqual([6, 1, 2]);
    const home = await defaultLocationId(h);
    expect(await qtyAt(h, a.id, home)).toBe(8);
    expect(await qtyAt(h, b.id, home)).toBe(1);
    const events = await h.db.query("SELECT body FROM events WHERE store_id = $1 AND type = 'inventory.adjusted'", [h.store.id]);
    expect(events.map((e) => JSON.parse(e.body).data.product_id).sort()).toEqual([a.id, b.id].sort());

    // Cancelling after a receipt is refused.
    expect((await h.call('POST', `/purchase-orders/${made.id}/cancel`, {}, as)).status).toBe(409);
    const done = await h.call(
      'POST',
      `/purchase-orders/${made.id}/receive`,
      {
        line_items: [
          { line_item_id: la, quantity: 4 },
          { line_item_id: lb, quantity: 3 },
        ],
      },
      as,
    );
    expect(done.body.status).toBe('received');
    expect(await qtyAt(h, a.id, home)).toBe(12);
    expect(await qtyAt(h, b.id, home)).toBe(4);
    expect((await h.call('POST', `/purchase-orders/${made.id}/receive`, { line_items: [{ line_item_id: la, quantity: 1 }] }, as)).status).toBe(409);
    // A read-only inventory key reads, but cannot write.
    const ro = { 'x-api-key': await h.newKey(['inventory:read']) };
    expect((await h.call('GET', `/purchase-orders/${made.id}`, undefined, ro)).body.status).toBe('received');
    expect((await h.call('GET', '/suppliers', undefined, ro)).body.data).toHaveLength(1);
    expect((await h.call('POST', `/suppliers`, { name: 'X' }, ro)).status).toBe(403);
  });

  test('receiving more than ordered is 409 and moves nothing, on any line; the PO location is where stock arrives', async () => {
    const h = await setup();
    const a = await mkProduct(h, { stock_quantity: 0 });
    const b = await mkProduct(h, { stock_quantity: 0 });
    const wh = await mkLocation(h, 'Warehouse');
    const made = await po(
      h,
      [
        { product_id: a.id, quantity: 5, unit_cost: 1 },
        { product_id: b.id, quantity: 5, unit_cost: 1 },
      ],
      { location_id: wh },
    );
    const [la, lb] = made.line_items.map((l: any) => l.id);
    await h.call('POST', `/purchase-orders/${made.id}/send`, {});
    const over = await h.call('POST', `/purchase-orders/${made.id}/receive`, {
      line_items: [
        { line_item_id: la, quantity: 5 },
        { line_item_id: lb, quantity: 6 },
      ],
    });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'over_receipt', param: 'line_items.1.quantity' });
    // The same line twice counts its sum.
    const twice = await h.call('POST', `/purchase-orders/${made.id}/receive`, {
      line_items: [
        { line_item_id: la, quantity: 3 },
        { line_item_id: la, quantity: 3 },
      ],
    });
    expect(twice.status).toBe(409);
    expect((await item(h, a.id)).total).toBe(0);
    expect((await item(h, b.id)).total).toBe(0);
    expect((await h.call('GET', `/purchase-orders/${made.id}`)).body.status).toBe('sent');
    const ok = await h.call('POST', `/purchase-orders/${made.id}/receive`, { line_items: [{ line_item_id: la, quantity: 5 }] });
    expect(ok.status).toBe(200);
    expect(await qtyAt(h, a.id, wh)).toBe(5);
    expect(await qtyAt(h, a.id, await defaultLocationId(h))).toBe(0);
  });

  test('cancel only before a receipt; another store’s supplier, product, location and PO are 404', async () => {
    const h = await setup();
    const theirs = await setup();
    const a = await mkProduct(h);
    const draft = await po(h, [{ product_id: a.id, quantity: 1, unit_cost: 1 }]);
    expect((await h.call('POST', `/purchase-orders/${draft.id}/cancel`, {})).body.status).toBe('cancelled');
    expect((await h.call('POST', `/purchase-orders/${draft.id}/send`, {})).status).toBe(409);
    const sent = await po(h, [{ product_id: a.id, quantity: 1, unit_cost: 1 }]);
    await h.call('POST', `/purchase-orders/${sent.id}/send`, {});
    expect((await h.call('POST', `/purchase-orders/${sent.id}/cancel`, {})).body.status).toBe('cancelled');

    expect((await theirs.call('GET', `/purchase-orders/${sent.id}`)).status).toBe(404);
    const p2 = await mkProduct(theirs);
    const sup = (await h.call('POST', '/suppliers', { name: 'Mine' })).body.id;
    const theirSup = (await theirs.call('POST', '/suppliers', { name: 'Theirs' })).body.id;
    const r1 = await h.call('POST', '/purchase-orders', { supplier_id: sup, line_items: [{ product_id: p2.id, quantity: 1, unit_cost: 1 }] });
    expect(r1.status).toBe(404);
    expect(r1.body.error.param).toBe('line_items.0.product_id');
    const r2 = await h.call('POST', '/purchase-orders', { supplier_id: theirSup, line_items: [{ product_id: a.id, quantity: 1, unit_cost: 1 }] });
    expect(r2.body.error.param).toBe('supplier_id');
    const loc = await mkLocation(theirs, 'Far');
    const r3 = await h.call('POST', '/purchase-orders', {
      supplier_id: sup,
      location_id: loc,
      line_items: [{ product_id: a.id, quantity: 1, unit_cost: 1 }],
    });
    expect(r3.body.error.param).toBe('location_id');
    const r4 = await h.call('POST', '/purchase-orders', { supplier_id: sup, line_items: [{ product_id: a.id, quantity: 1, unit_cost: 1.234 }] });
    expect(r4.status).toBe(400);
  });

  test('shipments: added, updated by id, and by a signed carrier report; a bad signature changes nothing', async () => {
    const h = await setup({ env: { SVC_INBOUND_SECRET: SECRET }, now: '2026-05-01T10:00:00Z' });
    const a = await mkProduct(h);
    const made = await po(h, [{ product_id: a.id, quantity: 1, unit_cost: 1 }]);
    const ship = await h.call('POST', '/shipments', { po_id: made.id, carrier: 'UPS', tracking_number: '1Z999' });
    expect(ship.body).toMatchObject({ status: 'pending', carrier: 'ups', po_id: made.id });
    const upd = await h.call('POST', '/shipments', { id: ship.body.id, status: 'in_transit' });
    expect(upd.body.status).toBe('in_transit');
    expect((await h.call('POST', '/shipments', { id: ship.body.id, status: 'lost' })).status).toBe(400);
    expect((await h.call('POST', '/shipments', { po_id: made.id, carrier: 'ups' })).body.error.param).toBe('tracking_number');

    const forged = await report(h, { carrier: 'ups', tracking_number: '1Z999', status: 'delivered', occurred_at: '2026-05-01T09:00:00Z' }, 'wrong');
    expect(forged.status).toBe(403);
    expect((await h.call('GET', `/purchase-orders/${made.id}`)).body.shipments[0].status).toBe('in_transit');

    const ok = await report(h, { carrier: 'ups', tracking_number: '1Z999', status: 'delivered', occurred_at: '2026-05-01T09:00:00Z' });
    expect(ok).toMatchObject({ status: 200, body: { received: true, updated: 1 } });
    // An older report arriving late does not undo the newer one.
    const late = await report(h, { carrier: 'ups', tracking_number: '1Z999', status: 'in_transit', occurred_at: '2026-05-01T08:00:00Z' });
    expect(late.body.updated).toBe(0);
    const shown = (await h.call('GET', `/purchase-orders/${made.id}`)).body.shipments[0];
    expect(shown).toMatchObject({ status: 'delivered', occurred_at: '2026-05-01T09:00:00.000Z' });
    expect((await report(h, { carrier: 'ups', tracking_number: '1Z999', status: 'gone', occurred_at: '2026-05-01T09:00:00Z' })).status).toBe(400);
    // Another store's shipment id is 404.
    const theirs = await setup();
    expect((await theirs.call('POST', '/shipments', { id: ship.body.id, status: 'exception' })).status).toBe(404);
  });

  test('the carrier route without SVC_INBOUND_SECRET is 400 provider_not_configured', async () => {
    const h = await setup();
    const res = await h.app.handle(new Request('http://svc.test/v1/inbound/shipments', { method: 'POST', body: '{}' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('provider_not_configured');
  });

  test('create_po and receive_po over MCP', async () => {
    const h = await setup();
    const a = await mkProduct(h, { stock_quantity: 0 });
    const { client } = await mcpClient(h);
    const call = async (args: Record<string, unknown>) =>
      JSON.parse(((await client.callTool({ name: 'supply_chain', arguments: args })) as any).content[0].text);
    const sup = await call({ action: 'create_supplier', name: 'Acme' });
    const made = await call({ action: 'create_po', supplier_id: sup.id, line_items: [{ product_id: a.id, quantity: 3, unit_cost: 2 }] });
    await call({ action: 'send_po', id: made.id });
    const got = await call({ action: 'receive_po', id: made.id, line_items: [{ line_item_id: made.line_items[0].id, quantity: 3 }] });
    await client.close();
    expect(got.status).toBe('received');
    expect((await item(h, a.id)).total).toBe(3);
  });

  test.skipIf(backend !== 'postgres')(
    'on PostgreSQL (skipped on the embedded database: it runs one transaction at a time) racing receipts never exceed what was ordered',
    async () => {
      const h = await setup();
      const a = await mkProduct(h, { stock_quantity: 0 });
      const made = await po(h, [{ product_id: a.id, quantity: 10, unit_cost: 1 }]);
      await h.call('POST', `/purchase-orders/${made.id}/send`, {});
      const line = made.line_items[0].id;
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          h.call('POST', `/purchase-orders/${made.id}/receive`, { line_items: [{ line_item_id: line, quantity: 3 }] }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(3);
      expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
      expect((await item(h, a.id)).total).toBe(9);
      const after = (await h.call('GET', `/purchase-orders/${made.id}`)).body;
      expect(after.line_items[0].received_quantity).toBe(9);
      expect(after.status).toBe('partially_received');
    },
  );
});
