/**
 * How the sweeps get a valid input for every action (test/kit/examples.ts): declared examples,
 * ids derived from the plugin's POST routes (nested ones included), and the two ways an action
 * goes uncovered: exempt with noExample(reason), or not, which the sweeps fail on.
 */
import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { action, definePlugin, noExample, type ActionDef, type PluginDef } from '../../core/plugins/contract';
import { Input, Uuid } from '../../core/plugins/schema';
import { freshWorld, Uncoverable } from '../kit/examples';
import { setup } from '../kit/setup';

const Thing = Type.Object({ id: Uuid(), crate_id: Type.Optional(Uuid()), label: Type.Optional(Type.String()) });
const made =
  (extra: object = {}) =>
  async (_ctx: unknown, input: any) => ({ id: crypto.randomUUID(), ...extra, ...(input.id ? { crate_id: input.id } : {}), label: input.label });
const read = async (_ctx: unknown, input: any) => ({ id: input.item_id ?? input.id });

const crates = definePlugin({
  name: 'crates',
  category: 'platform',
  scopes: { read: ['crates'], write: ['crates'] },
  actions: {
    create_crate: action({
      kind: 'write',
      description: 'Makes a crate.',
      input: Input({ label: Type.String() }),
      output: Thing,
      rest: { method: 'POST', path: '/crates', status: 201 },
      example: { label: 'Apples' },
      handler: made(),
    }),
    get_crate: action({
      kind: 'read',
      description: 'Reads a crate.',
      input: Input({ id: Uuid() }),
      output: Thing,
      rest: { method: 'GET', path: '/crates/:id' },
      handler: read,
    }),
    add_item: action({
      kind: 'write',
      description: 'Puts an item in a crate.',
      input: Input({ id: Uuid() }),
      output: Thing,
      rest: { method: 'POST', path: '/crates/:id/items', status: 201 },
      handler: made(),
    }),
    get_item: action({
      kind: 'read',
      description: 'Reads an item of a crate.',
      input: Input({ id: Uuid(), item_id: Uuid() }),
      output: Thing,
      rest: { method: 'GET', path: '/crates/:id/items/:item_id' },
      handler: read,
    }),
    rename_crate: action({
      kind: 'write',
      description: 'Relabels a crate.',
      input: Input({ id: Uuid(), label: Type.String() }),
      output: Thing,
      rest: { method: 'POST', path: '/crates/:id/label' },
      example: { label: 'Pears' },
      handler: made(),
    }),
    get_orphan: action({
      kind: 'read',
      description: 'Nothing makes these.',
      input: Input({ id: Uuid() }),
      output: Thing,
      rest: { method: 'GET', path: '/orphans/:id' },
      handler: read,
    }),
    get_held: action({
      kind: 'read',
      description: 'Made by the outside world.',
      input: Input({ id: Uuid() }),
      output: Thing,
      rest: { method: 'GET', path: '/held/:id' },
      example: noExample('held items come from a courier'),
      handler: read,
    }),
  },
});

const ref = (name: keyof typeof crates.actions) => ({ plugin: crates as PluginDef, actionName: name, action: crates.actions[name] as ActionDef });

describe('examples for the sweeps', () => {
  test('declared examples are used, path ids come from the POST at the path before them, nested ones under the same parent', async () => {
    const h = await setup({ plugins: [crates] });
    const w = await freshWorld(h);
    expect(await w.example(ref('create_crate'))).toEqual({ label: 'Apples' });
    const crate = await w.example(ref('get_crate'));
    expect(crate.id).toMatch(/^[0-9a-f-]{36}$/);
    const item = await w.example(ref('get_item'));
    const madeItem = w.made.find((m: any) => m.id === item.item_id) as any;
    expect(madeItem.crate_id).toBe(item.id);
    expect(await w.make('crates.create_crate', { label: 'Pears' })).toMatchObject({ label: 'Pears' });
  });

  test('a plain-object example gives the fields it names; the path id it leaves out is still derived', async () => {
    const h = await setup({ plugins: [crates] });
    const w = await freshWorld(h);
    const input = await w.example(ref('rename_crate'));
    expect(input).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), label: 'Pears' });
    // The id is a crate POST /crates made with its own example.
    expect(w.made).toContainEqual({ id: input.id, label: 'Apples' });
    const given = crypto.randomUUID();
    expect(await w.example(ref('rename_crate'), { id: given })).toEqual({ id: given, label: 'Pears' });
  });

  test('an id route nothing can make is a failure; one declared noExample is exempt, with its reason', async () => {
    const h = await setup({ plugins: [crates] });
    const w = await freshWorld(h);
    const orphan = await w.example(ref('get_orphan')).catch((e) => e);
    expect(orphan).toBeInstanceOf(Uncoverable);
    expect(orphan.exempt).toBe(false);
    expect(orphan.message).toContain('no POST /orphans');
    const held = await w.example(ref('get_held')).catch((e) => e);
    expect(held).toBeInstanceOf(Uncoverable);
    expect(held.exempt).toBe(true);
    expect(held.message).toContain('held items come from a courier');
  });
});
