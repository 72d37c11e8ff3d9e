import { completeSession } from './complete';
import { cancelSession, createSession, getSession, quoteCart, updateSession, type CheckoutCtx } from './sessions';
import type { AgentRef, PaymentInput, SessionChanges } from './types';

// Declared in schemas.ts (the plugin's declaration takes them at start); kept here for this module's users.
export { EngineCall, EngineResult } from './schemas';

/**
 * The engine as one internal action (`checkout.run_engine`, reached only by ctx.call): a raw
 * protocol route runs outside a transaction, and its ctx.call runs this in one, so the session,
 * the stock and the order it makes commit together.
 */
export async function runEngine(
  ctx: CheckoutCtx,
  input: { op: string; agent: AgentRef; id?: string; changes?: Record<string, unknown>; payment?: Record<string, unknown> },
) {
  const changes = (input.changes ?? {}) as SessionChanges;
  const id = input.id ?? '';
  switch (input.op) {
    case 'create':
      return createSession(ctx, input.agent, changes);
    case 'get':
      return getSession(ctx, input.agent, id);
    case 'update':
      return updateSession(ctx, input.agent, id, changes);
    case 'complete':
      return completeSession(ctx, input.agent, id, (input.payment ?? {}) as PaymentInput);
    case 'cancel':
      return cancelSession(ctx, input.agent, id);
    default:
      return quoteCart(ctx, changes);
  }
}
