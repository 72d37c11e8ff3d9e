import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { openDb } from '../core/db';
import { migrate } from '../core/db/migrate';
import { buildOpenApi } from '../core/http/openapi';
import { restRoutes } from '../core/http/rest';
import { listTools } from '../core/tools/catalog';
import { allMigrations } from '../core/migrations';
import { action, definePlugin, type Principal } from '../core/plugins/contract';
import { Input } from '../core/plugins/schema';
import { createRegistry } from '../core/plugins/registry';
import { allPlugins as plugins } from './kit/setup';
import { setup } from './kit/setup';
import { mcpClient } from './kit/mcp';

/** Catalog names (SPEC 4.10) each registered plugin must use exactly. */
const CATALOG: Record<string, string[]> = {
  products: ['list_products', 'get_product', 'create_product', 'update_product', 'delete_product'],
  orders: ['list_orders', 'get_order', 'create_order', 'update_order', 'cancel_order'],
  customers: ['list_customers', 'get_customer', 'create_customer', 'update_customer', 'enrich_customer'],
  inventory: ['list_inventory', 'get_inventory', 'adjust_stock', 'transfer_stock'],
  collections: ['list_collections', 'create_collection', 'add_products'],
  locations: ['list_locations', 'create_location', 'update_location'],
};

const everyScope: Principal = { kind: 'api_key', keyId: 'k', storeId: 's', scopes: plugins.flatMap((p) => [...p.scopes.read, ...p.scopes.write]), livemode: false };

describe('the plugin contract, over every registered plugin', () => {
  for (const plugin of plugins) {
    test(`${plugin.name}: names, scopes, schemas and REST mappings are valid`, () => {
      expect(plugin.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(plugin.scopes.read.length).toBeGreaterThan(0);
      expect(plugin.scopes.write.length).toBeGreaterThan(0);
      if (CATALOG[plugin.name]) expect(Object.keys(plugin.actions).sort()).toEqual([...CATALOG[plugin.name]].sort());
      for (const [name, a] of Object.entries(plugin.actions)) {
        expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(`${plugin.name}_${name}`.length).toBeLessThanOrEqual(64);
        expect(a.description.length).toBeGreaterThan(10);
        expect(a.input.type).toBe('object');
        // Only an action answering 204 (no body) may have a non-object output.
        expect(a.output.type).toBe(a.rest?.status === 204 ? 'null' : 'object');
        TypeCompiler.Compile(a.input);
        TypeCompiler.Compile(a.output);
        if (a.rest) {
          expect(a.rest.path).toStartWith('/');
          // Every :param of the path is an input field.
          for (const [, param] of a.rest.path.matchAll(/:([a-z_]+)/g)) expect(Object.keys(a.input.properties)).toContain(param);
        }
      }
    });
  }

  test('REST routes are unique by method and path', () => {
    const keys = restRoutes(createRegistry([...plugins])).map((r) => `${r.method} ${r.path.replace(/:[a-z_]+/g, ':p')}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('every migration applies on a fresh database, and applying them again changes nothing', async () => {
    const db = await openDb({});
    try {
      const migrations = allMigrations(plugins);
      expect(await migrate(db, migrations)).toEqual(migrations.map((m) => m.id));
      expect(await migrate(db, migrations)).toEqual([]);
      // The SQL itself is re-runnable too (IF NOT EXISTS), for a half-applied upgrade.
      for (const m of migrations) await db.exec(m.sql);
    } finally {
      await db.close();
    }
  }, 60_000);
});

describe('a plugin declared once is derived everywhere', () => {
  const Echo = Type.Object({ object: Type.Literal('echo'), said: Type.String() });
  const fixture = definePlugin({
    name: 'echo_fixture',
    category: 'platform',
    description: 'Repeats what it is told.',
    scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
    actions: {
      say: action({
        kind: 'read',
        description: 'Repeats the text it is given.',
        input: Input({ text: Type.String() }),
        output: Echo,
        rest: { method: 'GET', path: '/echo' },
        handler: async (_ctx, input) => ({ object: 'echo' as const, said: input.text }),
      }),
    },
  });

  test('registering a fixture plugin gives it a REST route, an OpenAPI path and an MCP tool', async () => {
    const h = await setup({ extra: [fixture] });
    const rest = await h.call('GET', '/echo?text=hello');
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ object: 'echo', said: 'hello' });
    expect(buildOpenApi(createRegistry([...plugins, fixture])).paths['/v1/stores/{storeId}/echo']?.get?.operationId).toBe('echo_fixture_say');
    expect(listTools(createRegistry([fixture]), everyScope, { mode: 'grouped', readOnly: false }).map((t) => t.name)).toContain('echo_fixture');
    const { client } = await mcpClient(h);
    const r: any = await client.callTool({ name: 'echo_fixture_say', arguments: { text: 'over MCP' } });
    expect(r.structuredContent).toEqual({ object: 'echo', said: 'over MCP' });
    await client.close();
  });
});
