/**
 * What orders may use of the wallet: paying an order from store credit and giving it back on a
 * refund, both in the order's transaction. A plugin that imports this file declares `requires: ['wallet']`.
 */
import { fail, fromMinor, type Db } from '../../core/sdk';
import { post } from './ledger';

/**
 * Debits `amountMinor` from the customer's wallet for an order, under the account's row lock: a
 * racing order waits and then sees the lower balance, so none overdraws (409 insufficient_wallet_balance).
 */
export async function payFromWallet(
  db: Db,
  storeId: string,
  p: { customerId: string; orderId: string; amountMinor: number; currency: string; now: Date; param: string },
) {
  const [acct] = await db.query('SELECT balance_minor, currency FROM wallet_accounts WHERE store_id = $1 AND customer_id = $2 FOR UPDATE', [
    storeId,
    p.customerId,
  ]);
  const balance = Number(acct?.balance_minor ?? 0);
  if (acct && acct.currency !== p.currency)
    throw fail('insufficient_wallet_balance', `The wallet holds ${acct.currency}; this order is in ${p.currency}.`, p.param);
  if (balance < p.amountMinor)
    throw fail(
      'insufficient_wallet_balance',
      `The customer's wallet holds ${fromMinor(balance, p.currency)} ${p.currency}; ${fromMinor(p.amountMinor, p.currency)} asked.`,
      p.param,
    );
  await post(db, storeId, {
    customerId: p.customerId,
    type: 'order_payment',
    amountMinor: p.amountMinor,
    currency: p.currency,
    orderId: p.orderId,
    now: p.now,
  });
}

/**
 * A refund of an order paid partly from the wallet gives credit back first: up to what the wallet
 * paid and was not yet given back. Answers the minor units credited (the rest goes back to the card).
 */
export async function creditRefund(db: Db, storeId: string, p: { orderId: string; refundId: string; amountMinor: number; now: Date }) {
  const [paid] = await db.query(
    `SELECT customer_id, currency, amount_minor FROM wallet_transactions WHERE store_id = $1 AND order_id = $2 AND type = 'order_payment'`,
    [storeId, p.orderId],
  );
  if (!paid) return 0;
  const [{ back }] = await db.query<{ back: string }>(
    `SELECT coalesce(sum(amount_minor), 0) AS back FROM wallet_transactions WHERE store_id = $1 AND order_id = $2 AND type = 'refund_credit'`,
    [storeId, p.orderId],
  );
  const credit = Math.min(p.amountMinor, Number(paid.amount_minor) - Number(back));
  if (credit <= 0) return 0;
  await post(db, storeId, {
    customerId: paid.customer_id,
    type: 'refund_credit',
    amountMinor: credit,
    currency: paid.currency,
    orderId: p.orderId,
    refundId: p.refundId,
    now: p.now,
  });
  return credit;
}
