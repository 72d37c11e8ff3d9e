import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Balance = Type.Object({
  object: Type.Literal('wallet_balance'),
  customer_id: Uuid(),
  balance: Type.Number({ description: "Store credit the customer can spend, in the store's currency." }),
  currency: Type.String(),
});

export const WalletTransaction = Type.Object({
  object: Type.Literal('wallet_transaction'),
  id: Uuid(),
  customer_id: Uuid(),
  type: Type.Union([Type.Literal('credit'), Type.Literal('order_payment'), Type.Literal('refund_credit')], {
    description: 'credit: add_funds; order_payment: spent on an order; refund_credit: given back by a refund.',
  }),
  amount: Type.Number({ description: 'Positive for credit into the wallet, negative for an order paid from it.' }),
  currency: Type.String(),
  balance_after: Type.Number(),
  reason: Nullable(Type.String()),
  order_id: Nullable(Uuid()),
  refund_id: Nullable(Uuid()),
  entries: Type.Array(Type.Object({ account: Type.String(), amount: Type.Number() }), {
    description: "The double entry: the customer's account against the store's side; they sum to zero.",
  }),
  created_at: Timestamp(),
});

export const BalanceQuery = Input({ customer_id: Uuid('The customer whose store credit is read.') });

export const AddFunds = Input({
  customer_id: Uuid("One of this store's customers."),
  amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: "Credit to add, in the store's currency." }),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why, e.g. goodwill for a late delivery.' })),
  idempotency_key: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'For MCP and agents (no headers there): a repeat with this key adds nothing and answers the first transaction. REST also takes the Idempotency-Key header.',
    }),
  ),
});

export const TransactionQuery = Input({
  ...ListParams,
  customer_id: Type.Optional(Uuid("Only this customer's transactions.")),
});
export const TransactionList = ListOf(WalletTransaction);
