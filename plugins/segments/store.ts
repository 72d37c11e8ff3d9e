import type { Static } from '@sinclair/typebox';
import { iso, listPage, page, rowOr404, stamps, type Ctx, type Row } from '../../core/sdk';
import { customersSource } from '../customers/public';
import { storeSettings } from '../store/public';
import { compile } from './rules';
import type { MembersQuery, RulesT, SegmentCreate, SegmentQuery } from './schemas';

const toSegment = (r: Row) => ({
  object: 'segment' as const,
  id: r.id,
  name: r.name,
  description: r.description ?? null,
  rules: r.rules as RulesT,
  ...stamps(r),
});

// $1 is the store id (page's), $2 the store's currency, the rule's values from $3.
const compileFor = (ctx: Ctx, rules: RulesT, currency: string) =>
  compile(rules, { currency, now: ctx.clock.now(), firstParam: 3, store: '$1', currencyParam: '$2' });

export const listSegments = (ctx: Ctx, input: Static<typeof SegmentQuery>) =>
  listPage(ctx, { table: 'segments', path: '/segments', input }, (rows) => rows.map(toSegment));

export const getSegment = async (ctx: Ctx, id: string) =>
  toSegment(await rowOr404(ctx.db, { table: 'segments', storeId: ctx.store.id, id, noun: 'segment' }));

export async function createSegment(ctx: Ctx, input: Static<typeof SegmentCreate>) {
  // Refuse a rule that cannot be evaluated now, not on the first read.
  compileFor(ctx, input.rules, (await storeSettings(ctx.db, ctx.store.id)).currency);
  const now = ctx.clock.now();
  const [r] = await ctx.db.query(
    'INSERT INTO segments (id, store_id, name, description, rules, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, $4::text::jsonb, $5, $5) RETURNING *',
    [ctx.store.id, input.name, input.description ?? null, JSON.stringify(input.rules), now],
  );
  const segment = toSegment(r);
  ctx.emit('segment.created', segment);
  return segment;
}

/** The customers matching the rules now, newest first, in cursor pages. */
export async function getMembers(ctx: Ctx, input: Static<typeof MembersQuery>) {
  const segment = await getSegment(ctx, input.id);
  const currency = (await storeSettings(ctx.db, ctx.store.id)).currency;
  const { sql, params } = compileFor(ctx, segment.rules, currency);
  const { rows, has_more } = await page<Row>(ctx.db, {
    table: `${customersSource('$1')} c`,
    storeId: ctx.store.id,
    // $2 is named even when no rule reads orders: PostgreSQL refuses a parameter it cannot type.
    where: [`$2::text IS NOT NULL`, `(${sql})`],
    params: [currency, ...params],
    input,
  });
  return {
    object: 'list' as const,
    data: rows.map((r) => ({
      object: 'customer' as const,
      id: r.id,
      email: r.email ?? null,
      first_name: r.first_name ?? null,
      last_name: r.last_name ?? null,
      tags: r.tags ?? [],
      accepts_marketing: r.accepts_marketing,
      created_at: iso(r.created_at),
    })),
    has_more,
    url: `${ctx.storePath}/segments/${segment.id}/members`,
  };
}
