import { action, conflict, definePlugin, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_wallet.sql' with { type: 'text' };
import { AddFunds, Balance, BalanceQuery, TransactionList, TransactionQuery, WalletTransaction } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { addFunds, getBalance, listTransactions } = onFirstCall(() => import('./store'));

const wallet = definePlugin({
  name: 'wallet',
  category: 'commerce',
  description: "Store credit per customer in the store's currency: a double-entry ledger, credit added, spent on orders, given back by refunds.",
  resource: 'wallet',
  catalog: true,
  // SPEC 5.4: commerce, commerce:read, commerce:write.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['wallet_accounts', 'wallet_transactions', 'wallet_entries'],
  // customers: the customer named exists; store: the currency of a new wallet.
  requires: ['customers', 'store'],
  events: { 'wallet.funds_added': WalletTransaction },
  errors: {
    insufficient_wallet_balance: conflict("The customer's store credit is less than the order asks of it; nothing was taken."),
  },
  migrations: [{ id: 'wallet/001_wallet', sql: migration001 }],
  actions: {
    get_balance: action({
      kind: 'read',
      description: "A customer's store credit balance, in the store's currency.",
      input: BalanceQuery,
      output: Balance,
      rest: { method: 'GET', path: '/wallet/balance' },
      example: async ({ make }) => ({ customer_id: (await make('customers.create_customer')).id }),
      handler: (ctx, { customer_id }) => getBalance(ctx, customer_id),
    }),
    add_funds: action({
      kind: 'write',
      description:
        'Add store credit to a customer, with an optional reason. Pass idempotency_key so a retry never adds twice. The credit is spent through create_order wallet_amount.',
      input: AddFunds,
      output: WalletTransaction,
      rest: { method: 'POST', path: '/wallet/funds', status: 201 },
      emits: ['wallet.funds_added'],
      example: async ({ make }) => ({ customer_id: (await make('customers.create_customer')).id, amount: 10, reason: 'Goodwill' }),
      handler: addFunds,
    }),
    list_transactions: action({
      kind: 'read',
      description: 'The wallet ledger, newest first; filter by customer_id. Each transaction shows its two entries and the balance after it.',
      input: TransactionQuery,
      output: TransactionList,
      rest: { method: 'GET', path: '/wallet/transactions' },
      handler: listTransactions,
    }),
  },
});
export default wallet;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'wallet', typeof wallet> {}
}
