/**
 * lockKey (core/sdk.ts): a transaction advisory lock on (store, key), for a read-then-write on a
 * row that may not exist yet. A fixture plugin counts calls per name in a table with no unique
 * key, the way a plugin would before it reached for a lock table: read the row, wait a moment,
 * then insert it or add one. Parallel requests on PostgreSQL lose no count and make one row with
 * the lock; without it (the control) they make several rows, so the test can fail.
 */
import { Type } from '@sinclair/typebox';
import { expect, test } from 'bun:test';
import { action, definePlugin, Input, lockKey } from '../../core/sdk';
import { backend } from '../kit/db';
import { setup } from '../kit/setup';

const Tally = Type.Object({ object: Type.Literal('tally'), name: Type.String(), rows: Type.Integer(), count: Type.Integer() });

const tallies = definePlugin({
  name: 'tallies',
  category: 'content',
  scopes: { read: ['tallies', 'tallies:read'], write: ['tallies', 'tallies:write'] },
  migrations: [
    { id: 'tallies/001_tallies', sql: 'CREATE TABLE IF NOT EXISTS tallies (store_id uuid NOT NULL, name text NOT NULL, count integer NOT NULL)' },
  ],
  tables: ['tallies'],
  actions: {
    bump: action({
      kind: 'write',
      description: 'Adds one to the tally of a name, creating it on first use.',
      input: Input({ name: Type.String({ minLength: 1, maxLength: 50 }), unlocked: Type.Optional(Type.Boolean()) }),
      output: Tally,
      rest: { method: 'POST', path: '/tallies' },
      example: { name: 'visits' },
      handler: async (ctx, input) => {
        if (!input.unlocked) await lockKey(ctx.db, ctx.store.id, `tally:${input.name}`);
        const [row] = await ctx.db.query('SELECT count FROM tallies WHERE store_id = $1 AND name = $2', [ctx.store.id, input.name]);
        await Bun.sleep(30); // the window a concurrent request would slip into
        if (row) await ctx.db.query('UPDATE tallies SET count = count + 1 WHERE store_id = $1 AND name = $2', [ctx.store.id, input.name]);
        else await ctx.db.query('INSERT INTO tallies (store_id, name, count) VALUES ($1, $2, 1)', [ctx.store.id, input.name]);
        const [sum] = await ctx.db.query<{ rows: number; count: number }>(
          'SELECT count(*)::int AS rows, coalesce(sum(count), 0)::int AS count FROM tallies WHERE store_id = $1 AND name = $2',
          [ctx.store.id, input.name],
        );
        return { object: 'tally' as const, name: input.name, rows: sum.rows, count: sum.count };
      },
    }),
  },
});

const bumpAll = async (h: Awaited<ReturnType<typeof setup>>, body: object, n: number) => {
  const answers = await Promise.all(Array.from({ length: n }, () => h.call('POST', '/tallies', body)));
  expect(answers.map((a) => a.status)).toEqual(Array(n).fill(200));
  const [{ rows, count }] = await h.db.query<{ rows: number; count: number }>(
    'SELECT count(*)::int AS rows, coalesce(sum(count), 0)::int AS count FROM tallies WHERE store_id = $1 AND name = $2',
    [h.store.id, (body as { name: string }).name],
  );
  return { rows, count };
};

test('parallel requests locking the same (store, key) take turns: one row, no count lost', async () => {
  const h = await setup({ extra: [tallies] });
  expect(await bumpAll(h, { name: 'visits' }, 12)).toEqual({ rows: 1, count: 12 });
  // Another store's same key is another lock, and another row.
  const other = await setup({ extra: [tallies] });
  expect(await bumpAll(other, { name: 'visits' }, 3)).toEqual({ rows: 1, count: 3 });
});

// The embedded database runs one transaction at a time, so requests there never race at all.
test.skipIf(backend !== 'postgres')(
  'on PostgreSQL (skipped on the embedded database: one transaction at a time), the same requests without the lock make several rows',
  async () => {
    const h = await setup({ extra: [tallies] });
    const unlocked = await bumpAll(h, { name: 'racy', unlocked: true }, 12);
    expect(unlocked.rows).toBeGreaterThan(1);
  },
);
