import type { Db } from '../../core/sdk';

export type Movement = {
  customerId: string;
  type: 'credit' | 'order_payment' | 'refund_credit';
  amountMinor: number;
  currency: string;
  now: Date;
  reason?: string | null;
  orderId?: string | null;
  refundId?: string | null;
  idempotencyKey?: string | null;
};

/** The store's side of each movement: credit given comes from `funding`, order money moves through `orders`. */
const COUNTER: Record<Movement['type'], string> = { credit: 'store:funding', order_payment: 'store:orders', refund_credit: 'store:orders' };

/**
 * Posts one movement: the account's new balance (created at the first credit, locked by the
 * update), a transaction row and its two entries summing to zero. Only inserts: the ledger is never edited.
 */
export async function post(db: Db, storeId: string, m: Movement) {
  const signed = m.type === 'order_payment' ? -m.amountMinor : m.amountMinor;
  // A debit finds the account (payFromWallet locked it and checked the balance); only credit may
  // create one (a proposed row with a negative balance would fail the CHECK even on conflict).
  const [acct] =
    signed < 0
      ? await db.query(
          'UPDATE wallet_accounts SET balance_minor = balance_minor + $3, updated_at = $4 WHERE store_id = $1 AND customer_id = $2 RETURNING balance_minor',
          [storeId, m.customerId, signed, m.now],
        )
      : await db.query(
          `INSERT INTO wallet_accounts (store_id, customer_id, currency, balance_minor, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $5)
           ON CONFLICT (store_id, customer_id) DO UPDATE SET balance_minor = wallet_accounts.balance_minor + $4, updated_at = $5
           RETURNING balance_minor`,
          [storeId, m.customerId, m.currency, signed, m.now],
        );
  const [tx] = await db.query(
    `INSERT INTO wallet_transactions (id, store_id, customer_id, type, amount_minor, currency, balance_after_minor, reason, order_id, refund_id, idempotency_key, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [
      storeId,
      m.customerId,
      m.type,
      m.amountMinor,
      m.currency,
      acct.balance_minor,
      m.reason ?? null,
      m.orderId ?? null,
      m.refundId ?? null,
      m.idempotencyKey ?? null,
      m.now,
    ],
  );
  await db.query(`INSERT INTO wallet_entries (store_id, transaction_id, account, amount_minor) VALUES ($1, $2, $3, $4), ($1, $2, $5, $6)`, [
    storeId,
    tx.id,
    `customer:${m.customerId}`,
    signed,
    COUNTER[m.type],
    -signed,
  ]);
  return tx;
}
