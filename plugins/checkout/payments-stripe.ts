import { fail, type Ctx } from '../../core/sdk';
import type { Charged } from './payments';
import type { AgenticSettings } from './settings-store';

/** Filled in with the Stripe adapter (core/providers/stripe.ts). */
export async function stripeCharge(
  _ctx: Ctx,
  _settings: AgenticSettings,
  _p: { token?: string; amount: number; currency: string; sessionId: string },
): Promise<Charged> {
  throw fail('provider_not_configured', 'Stripe payments are not available yet.', 'payments.adapter');
}
