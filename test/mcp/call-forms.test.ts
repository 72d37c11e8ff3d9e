/**
 * Tool names in both forms (grouped `products` + action, flat `products_list_products`) whatever
 * the connection's listing mode, and the texts of MCP refusals.
 */
import { describe, expect, test } from 'bun:test';
import { product, setup as setupApp, type SetupOptions } from '../kit/setup';
import { MCP_PATHS, mcpClient } from '../kit/mcp';

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a JSON-RPC error');
};

describe.each(MCP_PATHS)('%s path', (path) => {
  const setup = (o: SetupOptions = {}) => setupApp({ ...o, mcpFastPath: path === 'fast' });

  describe('both call forms resolve in both listing modes', () => {
    for (const mode of ['grouped', 'flat'] as const) {
      test(`${mode} listing: products_list_products, products + list_products, and discover_tools with either name`, async () => {
        const h = await setup();
        await h.call('POST', '/products', product({ name: 'Lamp' }));
        const { client } = await mcpClient(h, { query: mode === 'flat' ? '?tools=flat' : '' });
        const flat: any = await client.callTool({ name: 'products_list_products', arguments: { limit: 5 } });
        const grouped: any = await client.callTool({ name: 'products', arguments: { action: 'list_products', limit: 5 } });
        for (const r of [flat, grouped]) {
          expect(r.isError).toBeUndefined();
          expect(r.structuredContent.data.map((p: any) => p.name)).toEqual(['Lamp']);
        }
        // discover_tools: a flat name gives that one action, a category name all of its actions.
        const one: any = await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'products_get_product' } });
        expect(one.isError).toBeUndefined();
        expect(one.structuredContent).toMatchObject({ tool: 'products', actions: [{ action: 'get_product', flat_name: 'products_get_product' }] });
        expect(one.structuredContent.actions).toHaveLength(1);
        expect(one.structuredContent.actions[0].input_schema.required).toEqual(['id']);
        const all: any = await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'products' } });
        expect(all.structuredContent.actions.map((a: any) => a.action)).toContain('create_product');
        await client.close();
      });
    }

    test('discover_tools with a flat name the connection may not call is refused like an unknown name', async () => {
      const h = await setup();
      const { client } = await mcpClient(h, { query: '?readonly=true' });
      const r: any = await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'products_create_product' } });
      expect(r.isError).toBe(true);
      expect((await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'products_get_product' } })).isError).toBeUndefined();
      await client.close();
    });
  });

  describe('refusal texts', () => {
    test('an unknown tool is a JSON-RPC error whose message has its "MCP error -32602" prefix once', async () => {
      const h = await setup();
      const { client } = await mcpClient(h);
      const e = await errorOf(client.callTool({ name: 'no_such_tool', arguments: {} }));
      expect(e.message).toBe('MCP error -32602: Unknown tool: no_such_tool');
      await client.close();
    });

    test('a read-only connection refuses a write, or a custom tool, in plain words', async () => {
      const h = await setup();
      const made = await h.call('POST', '/tools', {
        name: 'stamp',
        description: 'Stamps.',
        execution_type: 'javascript',
        execution_config: { code: 'return 1;' },
      });
      expect(made.status).toBe(201);
      const { client } = await mcpClient(h, { query: '?readonly=true' });
      const write: any = await client.callTool({ name: 'products', arguments: { action: 'create_product', ...product() } });
      expect(write.isError).toBe(true);
      expect(JSON.parse(write.content[0].text).error).toEqual({
        type: 'permission_error',
        code: 'insufficient_scope',
        message: 'This connection is read-only; products.create_product changes data. Connect without readonly to call it.',
        param: null,
      });
      const custom: any = await client.callTool({ name: 'stamp', arguments: {} });
      expect(JSON.parse(custom.content[0].text).error.message).toBe(
        'This connection is read-only; stamp acts outside svc. Connect without readonly to call it.',
      );
      await client.close();
    });
  });
});
