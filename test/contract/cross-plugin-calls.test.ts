/**
 * The cross-plugin call rule (plugins/README.md): a ctx.call to a plugin the caller lists in
 * `requires` or `calls` (or to its own actions) runs as the calling plugin; to any other plugin it
 * is held to the caller's scopes. notFoundParam renames the callee's 404 param.
 */
import { expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { action, definePlugin } from '../../core/plugins/contract';
import { errors } from '../../core/errors';
import { Input, Uuid } from '../../core/plugins/schema';
import { setup } from '../kit/setup';
import type { Ctx } from '../../core/sdk';

const Out = Type.Object({ id: Type.String(), via: Type.String() });
const target = definePlugin({
  name: 'xc_target',
  category: 'platform',
  scopes: { read: ['xc_target:read'], write: ['xc_target:write'] },
  actions: {
    look: action({
      kind: 'read',
      description: 'Finds a thing; every id but the nil one is unknown.',
      input: Input({ id: Uuid() }),
      output: Out,
      rest: { method: 'GET', path: '/xc-target/:id' },
      handler: async (_ctx, { id }) => {
        if (id !== '00000000-0000-0000-0000-000000000000') throw errors.notFound(`thing: '${id}'`, 'id');
        return { id, via: 'target' };
      },
    }),
  },
});

/** Two callers of the target: one that builds on it (calls), one that does not. */
const caller = (name: string, builds: boolean) =>
  definePlugin({
    name,
    category: 'platform',
    scopes: { read: [`${name}:read`], write: [`${name}:write`] },
    ...(builds ? { calls: ['xc_target'] } : {}),
    actions: {
      [`ask_${name}`]: action({
        kind: 'read',
        description: 'Asks the target about a thing.',
        input: Input({ thing_id: Uuid() }),
        output: Out,
        rest: { method: 'GET', path: `/${name.replaceAll('_', '-')}/:thing_id` },
        handler: async (ctx, { thing_id }) => ({ ...(await ctx.call('xc_target.look', { id: thing_id }, { notFoundParam: 'thing_id' })), via: name }),
      }),
    },
  });

const NIL = '00000000-0000-0000-0000-000000000000';

test('a call to a plugin the caller builds on runs as the caller; to any other, with the key scopes', async () => {
  const h = await setup({ extra: [target, caller('xc_builder', true), caller('xc_stranger', false)] });
  const builderKey = { 'x-api-key': await h.newKey(['xc_builder:read']) };
  const built = await h.call('GET', `/xc-builder/${NIL}`, undefined, builderKey);
  expect(built.status).toBe(200);
  expect(built.body).toEqual({ id: NIL, via: 'xc_builder' });
  // The key itself still cannot reach the target.
  expect((await h.call('GET', `/xc-target/${NIL}`, undefined, builderKey)).status).toBe(403);

  const strangerKey = { 'x-api-key': await h.newKey(['xc_stranger:read']) };
  const refused = await h.call('GET', `/xc-stranger/${NIL}`, undefined, strangerKey);
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toContain('xc_target:read');
  const both = { 'x-api-key': await h.newKey(['xc_stranger:read', 'xc_target:read']) };
  expect((await h.call('GET', `/xc-stranger/${NIL}`, undefined, both)).status).toBe(200);
});

test("notFoundParam: the callee's 404 names the caller's field", async () => {
  const h = await setup({ extra: [target, caller('xc_builder', true)] });
  const missing = await h.call('GET', `/xc-builder/${crypto.randomUUID()}`);
  expect(missing.status).toBe(404);
  expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'thing_id' });
  expect(missing.body.error.message).toContain('No such thing');
});

/**
 * Checked by the type checker (CI's tsc), never run: ctx.call answers the callee's declared output
 * type (CallableActions), not `any`. Were it `any`, the expect-error below would be unused and tsc
 * would fail on it.
 */
export async function typedCallForTsc(ctx: Ctx) {
  const product = await ctx.call('products.get_product', { id: NIL }, { notFoundParam: 'product_id' });
  const name: string = product.name;
  // @ts-expect-error a product has no such field: the answer is products' Product
  return [name, product.no_such_field];
}
