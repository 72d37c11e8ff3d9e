import type { Static } from '@sinclair/typebox';
import { errors, fail, fromMinor, iso, listPage, lockKey, toMinor, type Ctx, type Db, type Row } from '../../core/sdk';
import { customerIdIn } from '../customers/public';
import { storeSettings } from '../store/public';
import { post } from './ledger';
import type { AddFunds, Balance, TransactionQuery, WalletTransaction } from './schemas';

async function toTransactions(db: Db, rows: Row[]): Promise<Static<typeof WalletTransaction>[]> {
  if (!rows.length) return [];
  const entries = await db.query(
    'SELECT transaction_id, account, amount_minor FROM wallet_entries WHERE transaction_id = ANY($1::uuid[]) ORDER BY id',
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({
    object: 'wallet_transaction' as const,
    id: r.id,
    customer_id: r.customer_id,
    type: r.type,
    amount: fromMinor(r.type === 'order_payment' ? -r.amount_minor : r.amount_minor, r.currency),
    currency: r.currency,
    balance_after: fromMinor(r.balance_after_minor, r.currency),
    reason: r.reason,
    order_id: r.order_id,
    refund_id: r.refund_id,
    entries: entries.filter((e) => e.transaction_id === r.id).map((e) => ({ account: e.account, amount: fromMinor(e.amount_minor, r.currency) })),
    created_at: iso(r.created_at),
  }));
}

async function customerOr404(ctx: Ctx, id: string) {
  const customerId = await customerIdIn(ctx.db, ctx.store.id, id);
  if (!customerId) throw errors.notFound(`customer: '${id}'`, 'customer_id');
  return customerId;
}

/** The wallet's currency: the account's once it exists, else the store's. */
async function currencyOf(ctx: Ctx, customerId: string) {
  const [acct] = await ctx.db.query('SELECT currency FROM wallet_accounts WHERE store_id = $1 AND customer_id = $2', [ctx.store.id, customerId]);
  return (acct?.currency as string) ?? (await storeSettings(ctx.db, ctx.store.id)).currency;
}

export async function getBalance(ctx: Ctx, id: string): Promise<Static<typeof Balance>> {
  const customerId = await customerOr404(ctx, id);
  const [acct] = await ctx.db.query('SELECT balance_minor, currency FROM wallet_accounts WHERE store_id = $1 AND customer_id = $2', [
    ctx.store.id,
    customerId,
  ]);
  const currency = (acct?.currency as string) ?? (await storeSettings(ctx.db, ctx.store.id)).currency;
  return { object: 'wallet_balance', customer_id: customerId, balance: fromMinor(acct?.balance_minor ?? 0, currency), currency };
}

/**
 * Adds credit. With an idempotency key, the key is locked first (it may name no row yet), so a
 * repeat, even a concurrent one, answers the first transaction and adds nothing; the same key for
 * another customer or amount is a 409.
 */
export async function addFunds(ctx: Ctx, input: Static<typeof AddFunds>) {
  const customerId = await customerOr404(ctx, input.customer_id);
  const currency = await currencyOf(ctx, customerId);
  const amountMinor = toMinor(input.amount, currency, 'amount');
  const key = input.idempotency_key ?? null;
  if (key) {
    await lockKey(ctx.db, ctx.store.id, `wallet.add_funds:${key}`);
    const [seen] = await ctx.db.query('SELECT * FROM wallet_transactions WHERE store_id = $1 AND idempotency_key = $2', [ctx.store.id, key]);
    if (seen) {
      if (seen.customer_id !== customerId || Number(seen.amount_minor) !== amountMinor)
        throw fail('idempotency_key_reused', 'This idempotency_key was used for another customer or amount.', 'idempotency_key');
      return (await toTransactions(ctx.db, [seen]))[0];
    }
  }
  const row = await post(ctx.db, ctx.store.id, {
    customerId,
    type: 'credit',
    amountMinor,
    currency,
    reason: input.reason,
    idempotencyKey: key,
    now: ctx.clock.now(),
  });
  const [made] = await toTransactions(ctx.db, [row]);
  ctx.emit('wallet.funds_added', made);
  return made;
}

export async function listTransactions(ctx: Ctx, input: Static<typeof TransactionQuery>) {
  const customerId = input.customer_id === undefined ? undefined : await customerOr404(ctx, input.customer_id);
  return listPage(ctx, { table: 'wallet_transactions', path: '/wallet/transactions', input, filters: { 'customer_id = $': customerId } }, (rows) =>
    toTransactions(ctx.db, rows),
  );
}
