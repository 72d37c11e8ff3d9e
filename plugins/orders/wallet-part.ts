import { errors, toMinor, type Db } from '../../core/sdk';
import { payFromWallet } from '../wallet/public';

/**
 * The part of a new order paid from store credit (`wallet_amount`): at most the total, only for a
 * customer. Covering the whole total places the order paid. `pay` debits the wallet in the order's
 * transaction, under the wallet's row lock (409 insufficient_wallet_balance rolls the order back).
 */
export function walletPart(input: { wallet_amount?: number }, customerId: string | null, currency: string, totalMinor: number) {
  const minor = input.wallet_amount ? toMinor(input.wallet_amount, currency, 'wallet_amount') : 0;
  if (minor > 0 && !customerId) throw errors.validation('Invalid wallet_amount: store credit needs the order to name customer_id.', 'wallet_amount');
  if (minor > totalMinor) throw errors.validation('Invalid wallet_amount: it is more than the order total.', 'wallet_amount');
  return {
    minor,
    status: minor > 0 && minor === totalMinor ? ('paid' as const) : undefined,
    pay: async (tx: Db, storeId: string, orderId: string, now: Date) => {
      if (minor > 0)
        await payFromWallet(tx, storeId, { customerId: customerId!, orderId, amountMinor: minor, currency, now, param: 'wallet_amount' });
    },
  };
}
