import { action, conflict, definePlugin, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_affiliates.sql' with { type: 'text' };
import {
  Affiliate,
  AffiliateCreate,
  AffiliateId,
  AffiliateList,
  AffiliateQuery,
  Attribution,
  Commission,
  Earnings,
  LinkInput,
  Payout,
} from './schemas';
import { Type } from '@sinclair/typebox';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { follow } = onFirstCall(() => import('./link'));
const { attributeOrder, createAffiliate, createPayout, getAffiliate, getEarnings, listAffiliates, onCancel, onRefund } = onFirstCall(
  () => import('./store'),
);

const affiliates = definePlugin({
  name: 'affiliates',
  category: 'commerce',
  description: 'Affiliate partners: ref links that count clicks, orders attributed to a code, commissions pending through a refund window, payouts.',
  resource: 'affiliate',
  catalog: true,
  // SPEC 5.4: commerce, commerce:read, commerce:write.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['affiliates', 'affiliate_commissions', 'affiliate_payouts'],
  // orders: the order attributed (ctx.call, as affiliates); products: product_commissions exist; store: currency, website_url.
  requires: ['orders', 'products', 'store'],
  events: { 'affiliate.created': Affiliate, 'affiliate.payout_created': Payout },
  errors: {
    duplicate_code: conflict('Another affiliate of this store has this code (codes ignore case).'),
    order_already_attributed: conflict('The order is already attributed to an affiliate: one affiliate per order.'),
    order_cancelled: conflict('A cancelled order earns no commission.'),
    nothing_payable: conflict('Nothing is payable: earnings stay pending until their refund window ends.'),
  },
  migrations: [{ id: 'affiliates/001_affiliates', sql: migration001 }],
  on: {
    // A refund inside the window lowers the commission; a cancellation voids it.
    'refund.created': (ctx, event) => onRefund(ctx, event.data.order_id),
    'order.cancelled': (ctx, event) => onCancel(ctx, event.data.id),
  },
  actions: {
    list_affiliates: action({
      kind: 'read',
      description: 'List affiliates, newest first, with their link and clicks; filter by code.',
      input: AffiliateQuery,
      output: AffiliateList,
      rest: { method: 'GET', path: '/affiliates' },
      handler: listAffiliates,
    }),
    create_affiliate: action({
      kind: 'write',
      description:
        'Add an affiliate: a unique code, a commission (percentage of the subtotal after discounts, or fixed per order), product_commissions that win for their lines, refund_window_days (default 30).',
      input: AffiliateCreate,
      output: Affiliate,
      rest: { method: 'POST', path: '/affiliates', status: 201 },
      emits: ['affiliate.created'],
      errors: ['duplicate_code'],
      example: async () => ({
        name: 'Ada Partner',
        email: 'ada@example.com',
        code: `ADA${crypto.randomUUID().slice(0, 8)}`,
        commission: { type: 'percentage' as const, value: 10 },
      }),
      handler: createAffiliate,
    }),
    get_affiliate: action({
      kind: 'read',
      description: 'One affiliate: its code, link and commission rules.',
      input: AffiliateId,
      output: Affiliate,
      rest: { method: 'GET', path: '/affiliates/:id' },
      handler: (ctx, { id }) => getAffiliate(ctx, id),
    }),
    get_earnings: action({
      kind: 'read',
      description: "An affiliate's earnings: pending (in the refund window), payable, paid, with each commission and payout.",
      input: AffiliateId,
      output: Earnings,
      rest: { method: 'GET', path: '/affiliates/:id/earnings' },
      handler: (ctx, { id }) => getEarnings(ctx, id),
    }),
    attribute_order: action({
      kind: 'write',
      description: 'Credit an order to the affiliate whose code the shop received (?ref=). One affiliate per order; cancelled orders earn nothing.',
      input: Attribution,
      output: Commission,
      rest: { method: 'POST', path: '/affiliates/attributions', status: 201 },
      errors: ['order_already_attributed', 'order_cancelled'],
      example: async ({ make }) => ({
        order_id: (await make('orders.create_order')).id,
        code: (await make('affiliates.create_affiliate')).code,
      }),
      handler: attributeOrder,
    }),
    create_payout: action({
      kind: 'destructive',
      description: 'Pay an affiliate everything payable now (past its refund window); 409 nothing_payable when there is none.',
      input: AffiliateId,
      output: Payout,
      rest: { method: 'POST', path: '/affiliates/:id/payouts', status: 201 },
      emits: ['affiliate.payout_created'],
      errors: ['nothing_payable'],
      // An affiliate with no refund window, credited with an order: that commission is payable at once.
      example: async ({ make }) => {
        const aff = await make('affiliates.create_affiliate', { refund_window_days: 0 });
        await make('affiliates.attribute_order', { order_id: (await make('orders.create_order')).id, code: aff.code });
        return { id: aff.id };
      },
      handler: (ctx, { id }) => createPayout(ctx, id),
    }),
    follow_affiliate_link: action({
      kind: 'write',
      description: "The public affiliate link: counts a click and redirects to the store's website_url with ?ref=<code>.",
      input: LinkInput,
      output: Type.Object({}, { description: 'A 302 redirect.' }),
      rest: { method: 'GET', path: '/r/:store_id/:code', auth: 'public', scope: 'global', response: 'raw', contentType: 'text/html' },
      handler: (ctx, input) => follow(ctx, String(input.store_id), String(input.code)),
    }),
  },
});
export default affiliates;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'affiliates', typeof affiliates> {}
}
