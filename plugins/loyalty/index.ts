import { action, conflict, definePlugin, Input, type ActionsOf, type ExampleKit, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_loyalty.sql' with { type: 'text' };
import {
  Balance,
  BalanceQuery,
  Entry,
  EntryList,
  EntryQuery,
  PointsAdd,
  Program,
  ProgramUpdate,
  RedeemInput,
  Redemption,
  Reward,
  RewardCreate,
  RewardList,
  RewardQuery,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { earn, takeBack } = onFirstCall(() => import('./reactions'));
const { addPoints, createReward, getBalance, getProgram, listEntries, listRewards, redeem, updateProgram } = onFirstCall(() => import('./store'));

const customerId = async ({ make }: ExampleKit) => (await make('customers.create_customer')).id as string;

const loyalty = definePlugin({
  name: 'loyalty',
  category: 'commerce',
  description: 'Loyalty points: an append-only ledger per customer, earned on paid orders, spent on rewards that become single-use coupons.',
  resource: 'loyalty_entry',
  catalog: true,
  // SPEC 5.4: commerce, commerce:read, commerce:write.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['loyalty_programs', 'loyalty_rewards', 'loyalty_entries'],
  // customers: the existence check; store: the currency; coupons: a reward's coupon (ctx.call, as loyalty);
  // orders: a refunded order's refunds (ctx.call, as loyalty).
  requires: ['customers', 'store', 'coupons', 'orders'],
  events: { 'loyalty_entry.created': Entry, 'loyalty_reward.created': Reward },
  errors: { insufficient_points: conflict("The customer's balance is below what is asked; the message gives both.") },
  migrations: [{ id: 'loyalty/001_loyalty', sql: migration001 }],
  on: {
    'order.paid': (ctx, event) => earn(ctx, event.data),
    'refund.created': (ctx, event) => takeBack(ctx, event.data),
  },
  actions: {
    get_balance: action({
      kind: 'read',
      description: "A customer's points: the sum of their ledger entries.",
      input: BalanceQuery,
      output: Balance,
      rest: { method: 'GET', path: '/loyalty/balance' },
      example: async (kit) => ({ customer_id: await customerId(kit) }),
      handler: (ctx, { customer_id }) => getBalance(ctx, customer_id),
    }),
    list_entries: action({
      kind: 'read',
      description: "A customer's ledger, newest first: signed points, reason, and the order, refund or reward behind each.",
      input: EntryQuery,
      output: EntryList,
      rest: { method: 'GET', path: '/loyalty/entries' },
      example: async (kit) => ({ customer_id: await customerId(kit) }),
      handler: listEntries,
    }),
    add_points: action({
      kind: 'write',
      description: 'Add (or, negative, take away) points by hand, with a reason; never below zero (409 insufficient_points).',
      input: PointsAdd,
      output: Entry,
      rest: { method: 'POST', path: '/loyalty/points', status: 201 },
      emits: ['loyalty_entry.created'],
      errors: ['insufficient_points'],
      example: async (kit) => ({ customer_id: await customerId(kit), points: 100, reason: 'Welcome bonus' }),
      handler: addPoints,
    }),
    redeem: action({
      kind: 'write',
      description:
        "Spend a customer's points on a reward: answers coupon_code, a single-use code only that customer's orders can use. Past the balance: 409 insufficient_points.",
      input: RedeemInput,
      output: Redemption,
      rest: { method: 'POST', path: '/loyalty/redeem', status: 201 },
      emits: ['loyalty_entry.created'],
      errors: ['insufficient_points'],
      // A customer given enough points, and a reward to spend them on.
      example: async (kit) => {
        const customer_id = await customerId(kit);
        await kit.make('loyalty.add_points', { customer_id, points: 1000, reason: 'For the example' });
        return { customer_id, reward_id: (await kit.make('loyalty.create_reward')).id };
      },
      handler: redeem,
    }),
    list_rewards: action({
      kind: 'read',
      description: 'The rewards customers can buy with points, newest first.',
      input: RewardQuery,
      output: RewardList,
      rest: { method: 'GET', path: '/loyalty/rewards' },
      handler: listRewards,
    }),
    create_reward: action({
      kind: 'write',
      description: "Offer a reward: name, points_cost, and percent_off or amount_off (in the store's currency) of the coupon it gives.",
      input: RewardCreate,
      output: Reward,
      rest: { method: 'POST', path: '/loyalty/rewards', status: 201 },
      emits: ['loyalty_reward.created'],
      example: { name: '5 off', points_cost: 500, amount_off: 5 },
      handler: createReward,
    }),
    get_program: action({
      kind: 'read',
      description: 'The earning rule: points_per_unit per whole 1.00 of an order subtotal after discounts (default 1).',
      input: Input({}),
      output: Program,
      rest: { method: 'GET', path: '/loyalty/program' },
      handler: (ctx) => getProgram(ctx),
    }),
    update_program: action({
      kind: 'write',
      description: 'Change points_per_unit (0 stops earning); orders already paid keep what they earned.',
      input: ProgramUpdate,
      output: Program,
      rest: { method: 'PATCH', path: '/loyalty/program' },
      example: { points_per_unit: 2 },
      handler: (ctx, { points_per_unit }) => updateProgram(ctx, points_per_unit),
    }),
  },
});
export default loyalty;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'loyalty', typeof loyalty> {}
}
