import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { openDb } from '../../core/db';
import { migrate } from '../../core/db/migrate';
import { buildOpenApi } from '../../core/http/openapi';
import { restRoutes } from '../../core/http/rest';
import { listTools } from '../../core/tools/catalog';
import { allMigrations } from '../../core/migrations';
import { action, definePlugin, type Principal } from '../../core/plugins/contract';
import { Input } from '../../core/plugins/schema';
import { createRegistry } from '../../core/plugins/registry';
import { allPlugins as plugins } from '../kit/setup';
import { setup } from '../kit/setup';
import { mcpClient } from '../kit/mcp';

const everyScope: Principal = {
  kind: 'api_key',
  keyId: 'k',
  storeId: 's',
  scopes: plugins.flatMap((p) => [...p.scopes.read, ...p.scopes.write]),
  livemode: false,
};

describe('the plugin contract, over every registered plugin', () => {
  for (const plugin of plugins) {
    test(`${plugin.name}: names, scopes, schemas and REST mappings are valid`, () => {
      expect(plugin.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(plugin.scopes.read.length).toBeGreaterThan(0);
      expect(plugin.scopes.write.length).toBeGreaterThan(0);
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
          // '' only for a store route naming the store itself (admin's PATCH /v1/stores/{id}).
          if (a.rest.path !== '' || a.rest.scope === 'global') expect(a.rest.path).toStartWith('/');
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

describe('the registry refuses a bad declaration at boot, naming it', () => {
  const ok = { kind: 'read' as const, description: 'Reads something.', input: Input({}), output: Type.Object({}), handler: async () => ({}) };
  const plugin = (over: Record<string, unknown>) =>
    definePlugin({
      name: 'thing',
      category: 'platform',
      scopes: { read: ['thing:read'], write: ['thing:write'] },
      actions: { get_thing: action(ok) },
      ...over,
    } as any);

  test('two plugins with one name, or a flat tool name taken twice', () => {
    expect(() => createRegistry([plugin({}), plugin({})])).toThrow("two plugins are named 'thing'");
    const a = plugin({ name: 'a_b', actions: { c: action(ok) } });
    const b = plugin({ name: 'a', actions: { b_c: action(ok) } });
    expect(() => createRegistry([a, b])).toThrow("the flat tool name 'a_b_c' is taken");
  });

  test('malformed scopes, event types, unknown requires and colliding routes', () => {
    expect(() => createRegistry([plugin({ scopes: { read: ['Thing Read'], write: ['thing'] } })])).toThrow("malformed scope 'Thing Read'");
    expect(() => createRegistry([plugin({ events: { created: Type.Object({}) } })])).toThrow("malformed event type 'created'");
    expect(() => createRegistry([plugin({ requires: ['ghost'] })])).toThrow("thing requires 'ghost', which is not registered");
    const route = (path: string) => action({ ...ok, rest: { method: 'GET', path } });
    expect(() => createRegistry([plugin({ actions: { a: route('/things/:id'), b: route('/things/:thing_id') } })])).toThrow('collides with thing.a');
    expect(() => createRegistry([plugin({ actions: { a: action({ ...ok, internal: true, rest: { method: 'GET', path: '/things' } }) } })])).toThrow(
      'thing.a: an internal action (ctx.call only) has no rest route',
    );
  });

  test('an internal action is neither a REST route nor a tool: only ctx.call reaches it', async () => {
    const internal = plugins.flatMap((p) => Object.entries(p.actions).flatMap(([name, a]) => (a.internal ? [`${p.name}.${name}`] : [])));
    expect(internal).toContain('inventory.vacate_location');
    const registry = createRegistry([...plugins]);
    const routed = restRoutes(registry).map((r) => `${r.plugin.name}.${r.actionName}`);
    const tools = listTools(registry, everyScope, { mode: 'flat', readOnly: false }).map((t) => t.name);
    for (const name of internal) {
      expect(routed).not.toContain(name);
      expect(tools).not.toContain(name.replace('.', '_'));
    }
  });

  test('plugin configuration is read from SVC_<PLUGIN>_<FIELD>, with defaults, and a bad value stops boot naming the variable', () => {
    const configured = plugin({
      config: Type.Object({ page_size: Type.Integer({ minimum: 1, default: 20 }), base_url: Type.Optional(Type.String({ env: 'THING_URL' })) }),
    });
    expect(createRegistry([configured], { env: {} }).configOf('thing')).toEqual({ page_size: 20 });
    expect(createRegistry([configured], { env: { SVC_THING_PAGE_SIZE: '5', THING_URL: 'http://x' } }).configOf('thing')).toEqual({
      page_size: 5,
      base_url: 'http://x',
    });
    expect(() => createRegistry([configured], { env: { SVC_THING_PAGE_SIZE: '0' } })).toThrow('Invalid SVC_THING_PAGE_SIZE');
  });
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
