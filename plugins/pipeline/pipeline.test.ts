import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { backend } from '../../test/kit/db';
import { setup, type Harness } from '../../test/kit/setup';

const deal = async (h: Harness, body: object) => {
  const r = await h.call('POST', '/deals', body);
  expect(r.status).toBe(201);
  return r.body;
};

describe('pipeline', () => {
  test('default stages, probability, stage history with the actor, and an unknown stage is 400', async () => {
    const h = await setup({ now: '2026-05-01T10:00:00Z' });
    expect((await h.call('GET', '/pipeline/stages')).body.stages.map((s: any) => `${s.name}:${s.probability}`)).toEqual([
      'lead:10',
      'qualified:25',
      'proposal:50',
      'negotiation:75',
      'won:100',
      'lost:0',
    ]);
    const rw = await h.newKey(['crm:read', 'crm:write']);
    const keyId = (await h.db.query('SELECT id FROM api_keys WHERE store_id = $1 ORDER BY created_at DESC, id LIMIT 50', [h.store.id])).map(
      (r) => r.id,
    );
    const made = (await h.call('POST', '/deals', { title: 'Hotel chain', value: 5000, close_date: '2026-06-15' }, { 'x-api-key': rw })).body;
    expect(made).toMatchObject({
      object: 'deal',
      stage: 'lead',
      probability: 10,
      value: 5000,
      currency: 'USD',
      close_date: '2026-06-15',
      customer_id: null,
    });
    expect(made.stage_history).toEqual([
      { from: null, to: 'lead', at: '2026-05-01T10:00:00.000Z', actor: { type: 'api_key', id: expect.any(String) } },
    ]);
    expect(keyId).toContain(made.stage_history[0].actor.id);
    h.clock.set('2026-05-02T09:00:00Z');
    const moved = await h.call('POST', `/deals/${made.id}/move`, { stage: 'proposal' }, { 'x-api-key': rw });
    expect(moved.body).toMatchObject({ stage: 'proposal', probability: 50 });
    expect(moved.body.stage_history.slice(1)).toEqual([
      { from: 'lead', to: 'proposal', at: '2026-05-02T09:00:00.000Z', actor: made.stage_history[0].actor },
    ]);
    const unknown = await h.call('POST', `/deals/${made.id}/move`, { stage: 'closed' });
    expect([unknown.status, unknown.body.error.param]).toEqual([400, 'stage']);
    const bad = await h.call('POST', '/deals', { title: 'x', value: 1, stage: 'nope' });
    expect([bad.status, bad.body.error.param]).toEqual([400, 'stage']);
    expect((await h.call('POST', '/deals', { title: 'x', value: 1, close_date: '2026-02-30' })).body.error.param).toBe('close_date');
    // Another store's deal is 404; crm:read cannot move.
    const other = await setup();
    expect((await other.call('POST', `/deals/${made.id}/move`, { stage: 'won' })).status).toBe(404);
    expect((await h.call('POST', `/deals/${made.id}/move`, { stage: 'won' }, { 'x-api-key': await h.newKey(['crm:read']) })).status).toBe(403);
    expect((await h.call('GET', '/deals?stage=proposal')).body.data.map((d: any) => d.id)).toEqual([made.id]);
  });

  test('a customer of another store is 404 naming customer_id', async () => {
    const h = await setup();
    const other = await setup();
    const c = (await other.call('POST', '/customers', { email: 'x@example.com' })).body.id;
    const r = await h.call('POST', '/deals', { title: 'x', value: 1, customer_id: c });
    expect([r.status, r.body.error.param]).toEqual([404, 'customer_id']);
  });

  test('forecast per month of close_date: value and weighted value', async () => {
    const h = await setup();
    await deal(h, { title: 'a', value: 1000, close_date: '2026-06-01', stage: 'proposal' }); // 500
    await deal(h, { title: 'b', value: 200, close_date: '2026-06-30', stage: 'lead' }); // 20
    await deal(h, { title: 'c', value: 400, close_date: '2026-07-10', stage: 'won' }); // 400
    await deal(h, { title: 'd', value: 300, close_date: '2026-07-11', stage: 'lost' }); // 0
    await deal(h, { title: 'e', value: 999 }); // no close date: not forecast
    const f = (await h.call('GET', '/deals/forecast')).body;
    expect(f).toEqual({
      object: 'forecast',
      currency: 'USD',
      months: [
        { month: '2026-06', deals: 2, value: 1200, weighted_value: 520 },
        { month: '2026-07', deals: 2, value: 700, weighted_value: 400 },
      ],
      value: 1900,
      weighted_value: 920,
    });
    expect((await h.call('GET', '/deals/forecast?from=2026-07-01')).body.months.map((m: any) => m.month)).toEqual(['2026-07']);
  });

  test('set_stages: custom stages and probabilities; a stage holding deals cannot be dropped', async () => {
    const h = await setup();
    const d = await deal(h, { title: 'a', value: 100, close_date: '2026-06-01' });
    const set = await h.call('PUT', '/pipeline/stages', {
      stages: [
        { name: 'lead', probability: 20 },
        { name: 'signed', probability: 100 },
      ],
    });
    expect(set.status).toBe(200);
    expect((await h.call('GET', `/deals/${d.id}`)).body.probability).toBe(20);
    expect((await h.call('GET', '/deals/forecast')).body.weighted_value).toBe(20);
    const drop = await h.call('PUT', '/pipeline/stages', { stages: [{ name: 'signed', probability: 100 }] });
    expect([drop.status, drop.body.error.code]).toEqual([409, 'stage_in_use']);
    const dup = await h.call('PUT', '/pipeline/stages', {
      stages: [
        { name: 'lead', probability: 1 },
        { name: 'lead', probability: 2 },
      ],
    });
    expect([dup.status, dup.body.error.param]).toEqual([400, 'stages.1.name']);
    expect((await h.call('POST', `/deals/${d.id}/move`, { stage: 'proposal' })).status).toBe(400);
    expect((await h.call('POST', `/deals/${d.id}/move`, { stage: 'signed' })).body.probability).toBe(100);
  });

  test.skipIf(backend !== 'postgres')(
    'on PostgreSQL (skipped on the embedded database: one transaction at a time): 20 racing moves each leave their history entry',
    async () => {
      const h = await setup();
      const d = await deal(h, { title: 'raced', value: 100 });
      const stages = ['qualified', 'proposal', 'negotiation', 'won'];
      const moves = await Promise.all(Array.from({ length: 20 }, (_, i) => h.call('POST', `/deals/${d.id}/move`, { stage: stages[i % 4] })));
      expect(moves.every((m) => m.status === 200)).toBe(true);
      const history = (await h.call('GET', `/deals/${d.id}`)).body.stage_history;
      // Each entry starts where the one before ended: no move was lost or read a stale stage.
      for (let i = 1; i < history.length; i++) expect(history[i].from).toBe(history[i - 1].to);
      expect(history.length).toBeGreaterThan(1);
    },
  );

  test('move_stage over MCP', async () => {
    const h = await setup();
    const d = await deal(h, { title: 'a', value: 100 });
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'pipeline', arguments: { action: 'move_stage', id: d.id, stage: 'won' } });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toMatchObject({ stage: 'won', probability: 100 });
  });
});
