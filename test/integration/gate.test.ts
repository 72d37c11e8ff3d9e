/** What gates a call (SPEC 4.5): an agent's tool_overrides, a tool's own requires_approval, conditions over the input. */
import { describe, expect, test } from 'bun:test';
import { product, setup } from '../kit/setup';
import { openai } from '../kit/fake-models';
import { world, useWorlds } from '../kit/approvals';

useWorlds();

describe('tool_overrides (SPEC 4.5)', () => {
  const list = { name: 'products', input: { action: 'list_products', limit: 1 } };
  const create = () => ({ name: 'products', input: { action: 'create_product', ...product() } });

  test('requires_approval: a list gates only the listed actions; true gates every action', async () => {
    const w = await world([openai.tools(list, create()), openai.text('ok'), openai.tools(list), openai.text('ok')]);
    const listed = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
    const one = await w.converse(listed.id, 'Look, then add');
    expect(one.held.map((x) => x.tool)).toEqual(['products']);
    expect((await w.exec(one.held[0].execution_id)).action).toBe('create_product');
    // list_products ran straight away; create_product waited and was rejected.
    expect(w.toolResults(1)).toEqual([
      expect.objectContaining({ object: 'list', data: [] }),
      { error: expect.objectContaining({ code: 'approval_rejected' }) },
    ]);
    const all = await w.agent(['products'], { products: { requires_approval: true } });
    const two = await w.converse(all.id, 'Look');
    expect(two.held.length).toBe(1);
    expect(await w.exec(two.held[0].execution_id)).toMatchObject({ action: 'list_products', approval: { gated_by: 'agent' } });
    expect(await w.productCount()).toBe(0);
  });

  test("a custom tool's own requires_approval gates; an agent's auto_approve lifts it for that agent only", async () => {
    const call = { name: 'order_stock', input: { quantity: 3 } };
    const w = await world([openai.tools(call), openai.text('ok'), openai.tools(call), openai.text('ok')]);
    await w.orderTool({ requires_approval: true });
    const plain = await w.agent(['order_stock']);
    const gated = await w.converse(plain.id, 'Order 3');
    expect(gated.held).toEqual([
      { type: 'approval_required', tool: 'order_stock', execution_id: expect.any(String), message: 'order_stock requires approval.' },
    ]);
    expect(await w.exec(gated.held[0].execution_id)).toMatchObject({ tool: 'order_stock', action: 'run', approval: { gated_by: 'tool' } });
    const trusted = await w.agent(['order_stock'], { order_stock: { auto_approve: ['run'] } });
    const free = await w.converse(trusted.id, 'Order 3');
    expect(free.held).toEqual([]);
    expect(w.toolResults(3)).toEqual([{ ordered: 3 }]);
    const rows = (await w.h.call('GET', `/tool-executions?agent_id=${trusted.id}`)).body.executions;
    expect(rows.map((r: any) => [r.status, r.output])).toEqual([['success', { ordered: 3 }]]);
  });

  test('approval_conditions: `input.quantity > 5` gates only matching calls, with its message; a condition that throws gates', async () => {
    const w = await world([
      openai.tools({ name: 'order_stock', input: { quantity: 2 } }, { name: 'order_stock', input: { quantity: 9 } }),
      openai.text('ok'),
      openai.tools({ name: 'order_stock', input: { quantity: 1 } }),
      openai.text('ok'),
    ]);
    await w.orderTool();
    const agent = await w.agent(['order_stock'], {
      order_stock: { approval_conditions: { run: { when: 'input.quantity > 5', message: 'Large orders need a manager.' } } },
    });
    const r = await w.converse(agent.id, 'Order 2 then 9');
    expect(r.held.map((x) => x.message)).toEqual(['Large orders need a manager.']);
    const rows = (await w.h.call('GET', `/tool-executions?agent_id=${agent.id}`)).body.executions;
    expect(rows.map((x: any) => [x.input.quantity, x.status])).toEqual([
      [9, 'rejected'],
      [2, 'success'],
    ]);
    expect(rows[0].approval).toMatchObject({ gated_by: 'condition' });
    // A condition that cannot be evaluated on this input gates: when in doubt, a human decides.
    const doubt = await w.agent(['order_stock'], { order_stock: { approval_conditions: { run: { when: "input.supplier.name === 'ACME'" } } } });
    const d = await w.converse(doubt.id, 'Order 1');
    expect(d.held.length).toBe(1);
    expect(d.held[0].message).toContain('could not be evaluated');
  });

  test('PATCH tool-config: bad conditions, unknown tools and actions are 400s naming the field; null removes a tool', async () => {
    const w = await world();
    await w.orderTool();
    const a = await w.agent(['products', 'order_stock']);
    const patch = (tool_overrides: unknown) => w.h.call('PATCH', `/agents/${a.id}/tool-config`, { tool_overrides });
    const bad = async (tool_overrides: unknown, param: string) => {
      const r = await patch(tool_overrides);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    };
    await bad(
      { order_stock: { approval_conditions: { run: { when: 'input.quantity >' } } } },
      'tool_overrides.order_stock.approval_conditions.run.when',
    );
    await bad(
      { products: { approval_conditions: { create_product: { when: 'input.price > )' } } } },
      'tool_overrides.products.approval_conditions.create_product.when',
    );
    await bad({ nope: { requires_approval: true } }, 'tool_overrides.nope');
    await bad({ products: { requires_approval: ['fly'] } }, 'tool_overrides.products.requires_approval');
    await bad({ products: { auto_approve: ['approve_execution'] } }, 'tool_overrides.products.auto_approve');
    await bad({ order_stock: { approval_conditions: { create_product: { when: 'true' } } } }, 'tool_overrides.order_stock.approval_conditions');
    await bad({ products: { timeout_action: 'escalate' } }, 'tool_overrides.products.escalation_group');
    expect((await w.h.call('GET', `/agents/${a.id}/tool-config`)).body.tool_overrides).toEqual({});
    const ok = await patch({ products: { requires_approval: ['create_product'] }, order_stock: { auto_approve: ['run'] } });
    expect(ok.status).toBe(200);
    expect(ok.body.tool_overrides).toEqual({ products: { requires_approval: ['create_product'] }, order_stock: { auto_approve: ['run'] } });
    const removed = await patch({ order_stock: null });
    expect(removed.body.tool_overrides).toEqual({ products: { requires_approval: ['create_product'] } });
    const other = await setup();
    expect((await other.call('PATCH', `/agents/${a.id}/tool-config`, { tool_overrides: {} })).status).toBe(404);
  });
});
