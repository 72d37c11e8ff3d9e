/** Held MCP calls and the execution audit log (SPEC 2.6, 4.5): hold results, outcomes, filters, isolation. */
import { describe, expect, test } from 'bun:test';
import { product, setup } from '../kit/setup';
import { openai } from '../kit/fake-models';
import { mcpClient } from '../kit/mcp';
import { serveTls, trustTestReceivers } from '../kit/tool-egress';
import { callTool } from '../../core/tools/call';
import { world, MIN, stops, useWorlds } from '../kit/approvals';

useWorlds();

describe('MCP clients', () => {
  test('a gated custom tool over MCP: a hold result (not an error) naming the execution; after approval get_execution shows the result', async () => {
    const w = await world();
    await w.orderTool({ requires_approval: true });
    const { client } = await mcpClient(w.h);
    stops.push(() => client.close());
    const held = await client.callTool({ name: 'order_stock', arguments: { quantity: 4 } });
    expect(held.isError).toBeFalsy();
    const hold = held.structuredContent as any;
    expect(hold).toEqual({ status: 'pending_approval', execution_id: expect.any(String), message: expect.stringContaining(hold.execution_id) });
    expect(JSON.parse((held.content as any)[0].text)).toEqual(hold);
    const id = hold.execution_id;
    expect(await w.exec(id)).toMatchObject({ source: 'mcp', agent_id: null, status: 'pending_approval', input: { quantity: 4 } });

    // The MCP client cannot decide its own call.
    const self = await client.callTool({ name: 'tool_executions', arguments: { action: 'approve_execution', id } });
    expect(self.isError).toBe(true);
    expect((await w.exec(id)).status).toBe('pending_approval');

    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, { comment: 'go' })).status).toBe(200);
    const pending = await client.callTool({ name: 'tool_executions', arguments: { action: 'get_execution', id } });
    expect((pending.structuredContent as any).status).toBe('approved');
    await w.runJobs(id, 'run');
    const got = await client.callTool({ name: 'tool_executions', arguments: { action: 'get_execution', id } });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ id, status: 'success', output: { ordered: 4 }, approval: { decision: 'approved', comment: 'go' } });
    expect((await w.exec(id)).output).toEqual({ ordered: 4 });
  });

  test("a custom tool's own escalate settings: escalated after its window, approved in the second, then it runs", async () => {
    const w = await world();
    await w.orderTool({ requires_approval: true, approval_timeout_minutes: 2, timeout_action: 'escalate', escalation_group: 'ops' });
    const { client } = await mcpClient(w.h);
    stops.push(() => client.close());
    const id = ((await client.callTool({ name: 'order_stock', arguments: { quantity: 7 } })).structuredContent as any).execution_id;
    expect((await w.exec(id)).approval).toMatchObject({
      gated_by: 'tool',
      timeout_minutes: 2,
      timeout_action: 'escalate',
      escalation_group: 'ops',
      group: 'default',
    });
    w.h.clock.advance(2 * MIN);
    await w.runJobs(id, 'timeout');
    expect((await w.exec(id)).approval).toMatchObject({ group: 'ops', escalated: true });
    w.h.clock.advance(MIN);
    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, {})).status).toBe(200);
    await w.runJobs(id, 'run');
    w.h.clock.advance(5 * MIN);
    await w.runJobs(id, 'timeout');
    expect(await w.exec(id)).toMatchObject({ status: 'success', output: { ordered: 7 } });
  });

  test('approve, reject, tool-config changes and tool tests are not MCP tools', async () => {
    const w = await world();
    await w.orderTool();
    const { client } = await mcpClient(w.h);
    stops.push(() => client.close());
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('tool_executions');
    expect(names).toContain('order_stock');
    const described = (tool: string) => tools.find((t) => t.name === tool)!.description ?? '';
    const actions = async (tool: string) =>
      ((await client.callTool({ name: 'discover_tools', arguments: { tool_name: tool } })).structuredContent as any).actions.map(
        (a: any) => a.action,
      );
    expect(await actions('tool_executions')).toEqual(['list_executions', 'get_execution']);
    expect(described('tool_executions')).not.toContain('approve_execution');
    expect(await actions('agents')).not.toContain('update_tool_config');
    const custom = await actions('custom_tools');
    for (const hidden of ['test_tool', 'test_custom_tool', 'create_tool', 'update_tool', 'set_tool_secrets']) expect(custom).not.toContain(hidden);
    const flat = await mcpClient(w.h, { query: '?tools=flat' });
    stops.push(() => flat.client.close());
    const flatNames = (await flat.client.listTools()).tools.map((t) => t.name);
    for (const hidden of [
      'tool_executions_approve_execution',
      'tool_executions_reject_execution',
      'agents_update_tool_config',
      'custom_tools_test_tool',
    ])
      expect(flatNames).not.toContain(hidden);
    expect(flatNames).toContain('tool_executions_get_execution');
    const refused = await client.callTool({
      name: 'agents',
      arguments: { action: 'update_tool_config', id: crypto.randomUUID(), tool_overrides: {} },
    });
    expect(refused.isError).toBe(true);
  });
});

describe('the audit log (SPEC 2.6, 4.5)', () => {
  test('every agent and MCP call is a row; filters, paging and total; another store sees none', async () => {
    const slow = serveTls(async () => (await Bun.sleep(1500), Response.json({ late: true })));
    stops.push(() => slow.server.stop(true), trustTestReceivers());
    const w = await world([openai.tools({ name: 'products', input: { action: 'list_products', limit: 1 } }), openai.text('None yet.')]);
    const { h } = w;
    const agent = await w.agent(['products']);
    const at = (minute: number) => new Date(Date.parse('2026-04-01T00:00:00Z') + minute * MIN).toISOString();

    // 00:00 an agent lists products (success).
    await w.converse(agent.id, 'What do I sell?');
    // 00:01 an MCP client lists products (success), 00:02 asks for a malformed id (error).
    const { client } = await mcpClient(h);
    stops.push(() => client.close());
    h.clock.advance(MIN);
    expect((await client.callTool({ name: 'products', arguments: { action: 'list_products' } })).isError).toBeFalsy();
    h.clock.advance(MIN);
    expect((await client.callTool({ name: 'products', arguments: { action: 'get_product', id: 'not-an-id' } })).isError).toBe(true);
    // 00:03 a read-only key tries to create (error: insufficient scope).
    h.clock.advance(MIN);
    const reader = await mcpClient(h, { key: await h.newKey(['products:read']) });
    stops.push(() => reader.client.close());
    const denied = await reader.client.callTool({ name: 'products', arguments: { action: 'create_product', ...product() } });
    expect(denied.isError).toBe(true);
    expect(JSON.parse((denied.content as any)[0].text).error.code).toBe('insufficient_scope');
    // 00:04 an HTTP custom tool runs past its timeout_ms (timeout).
    h.clock.advance(MIN);
    const tool = await h.call('POST', '/tools', {
      name: 'slow_lookup',
      description: 'A slow supplier lookup.',
      parameters: { type: 'object', properties: {} },
      execution_type: 'http',
      execution_config: { url: `${slow.url}/lookup`, method: 'POST', timeout_ms: 150 },
    });
    expect(tool.status).toBe(201);
    const allow = process.env.SVC_EGRESS_ALLOW;
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    try {
      const timedOut = await client.callTool({ name: 'slow_lookup', arguments: {} });
      expect(timedOut.isError).toBe(true);
    } finally {
      if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
      else process.env.SVC_EGRESS_ALLOW = allow;
    }

    const q = async (query: string) => {
      const r = await h.call('GET', `/tool-executions${query}`);
      expect(r.status).toBe(200);
      return r.body;
    };
    const all = await q('');
    expect(all).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(all.executions.map((e: any) => [e.created_at, e.tool, e.action, e.source, e.status])).toEqual([
      [at(4), 'slow_lookup', 'run', 'mcp', 'timeout'],
      [at(3), 'products', 'create_product', 'mcp', 'error'],
      [at(2), 'products', 'get_product', 'mcp', 'error'],
      [at(1), 'products', 'list_products', 'mcp', 'success'],
      [at(0), 'products', 'list_products', 'agent', 'success'],
    ]);
    for (const e of all.executions) {
      expect(Number.isInteger(e.duration_ms) && e.duration_ms >= 0).toBe(true);
      expect(e.completed_at).toBe(e.created_at);
      expect(e.approval).toBeNull();
    }
    const [timeoutRow, scopeRow, inputRow] = all.executions;
    expect(timeoutRow.output.error).toMatchObject({ code: 'tool_timeout' });
    expect(timeoutRow.duration_ms).toBeGreaterThanOrEqual(100);
    expect(scopeRow.output.error).toMatchObject({ code: 'insufficient_scope' });
    expect(inputRow).toMatchObject({ input: { id: 'not-an-id' }, output: { error: { type: 'invalid_request_error' } } });
    expect(all.executions[4]).toMatchObject({ agent_id: agent.id, agent_name: 'Clerk', input: { limit: 1 } });

    expect((await q('?tool=products')).total).toBe(4);
    expect((await q('?tool=slow_lookup')).executions.map((e: any) => e.status)).toEqual(['timeout']);
    expect((await q(`?agent_id=${agent.id}`)).executions.map((e: any) => e.source)).toEqual(['agent']);
    expect((await q('?status=error')).total).toBe(2);
    expect((await q('?status=timeout&tool=products')).total).toBe(0);
    expect((await q(`?from=${at(1)}&to=${at(3)}`)).executions.map((e: any) => e.action)).toEqual(['create_product', 'get_product', 'list_products']);
    expect((await q(`?from=${encodeURIComponent('2026-04-01T00:02:30+00:00')}`)).total).toBe(2);
    const page = await q('?limit=2&offset=1');
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.executions.map((e: any) => e.created_at)).toEqual([at(3), at(2)]);
    expect((await q('?limit=2&offset=4')).executions.length).toBe(1);
    expect((await q('?status=pending_approval')).total).toBe(0);

    for (const [query, param] of [
      ['?from=yesterday', 'from'],
      ['?from=2026-13-45T00:00:00Z', 'from'],
      ['?to=2026-04-01T25:00:00Z', 'to'],
      ['?status=done', 'status'],
      ['?limit=0', 'limit'],
      ['?agent_id=nope', 'agent_id'],
    ]) {
      const r = await h.call('GET', `/tool-executions${query}`);
      expect([query, r.status, r.body.error?.param]).toEqual([query, 400, param]);
    }

    const other = await setup();
    expect((await other.call('GET', '/tool-executions')).body).toMatchObject({ executions: [], total: 0 });
    expect((await other.call('GET', `/tool-executions?agent_id=${agent.id}`)).body.total).toBe(0);
    expect((await other.call('GET', `/tool-executions/${timeoutRow.id}`)).status).toBe(404);
    expect((await other.call('POST', `/tool-executions/${timeoutRow.id}/approve`, {})).status).toBe(404);
    // This store's own approve of a call that was never gated: a conflict, not a run.
    const notGated = await h.call('POST', `/tool-executions/${scopeRow.id}/approve`, {});
    expect(notGated.status).toBe(409);
    expect((await h.call('GET', `/tool-executions/${crypto.randomUUID()}`)).status).toBe(404);
  });
});
