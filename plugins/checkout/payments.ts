import { fail, type Ctx } from '../../core/sdk';
import { stripeCharge } from './payments-stripe';
import type { AgenticSettings } from './settings-store';

export type { Charged } from './types';
import type { Charged } from './types';

/**
 * Takes the payment through the store's adapter. `manual` (the default) places the order pending,
 * or hands the buyer to `continue_url` when the store escalates; `stripe` charges the agent's
 * token through PaymentIntents (payments-stripe.ts).
 */
export async function charge(
  ctx: Ctx,
  settings: AgenticSettings,
  p: { handler?: string; token?: string; amount: number; currency: string; sessionId: string },
): Promise<Charged> {
  const adapter = p.handler ?? settings.payments.adapter;
  if (adapter !== settings.payments.adapter)
    throw fail(
      'payment_handler_unsupported',
      `This store takes payments through '${settings.payments.adapter}', not '${adapter}'.`,
      'payment.handler',
    );
  if (adapter === 'manual') {
    if (settings.payments.manual_mode === 'escalate') {
      if (!settings.payments.continue_url)
        throw fail('continue_url_missing', 'The store escalates checkouts but set no payments.continue_url.', 'payments.continue_url');
      return { kind: 'escalate', continue_url: settings.payments.continue_url };
    }
    return { kind: 'ok', status: 'pending', payment_method: 'manual' };
  }
  return stripeCharge(ctx, settings, p);
}
