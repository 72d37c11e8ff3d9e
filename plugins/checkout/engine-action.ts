import { Type } from '@sinclair/typebox';
import { Input } from '../../core/sdk';
import { completeSession } from './complete';
import { cancelSession, createSession, getSession, quoteCart, updateSession, type CheckoutCtx } from './sessions';
import type { AgentRef, PaymentInput, SessionChanges } from './types';

/**
 * The engine as one internal action (`checkout.run_engine`, reached only by ctx.call): a raw
 * protocol route runs outside a transaction, and its ctx.call runs this in one, so the session,
 * the stock and the order it makes commit together.
 */
export const EngineCall = Input({
  op: Type.Union(['create', 'get', 'update', 'complete', 'cancel', 'quote'].map((o) => Type.Literal(o))),
  agent: Type.Object({
    protocol: Type.Union([Type.Literal('api'), Type.Literal('ucp'), Type.Literal('acp')]),
    profile_url: Type.Optional(Type.String()),
    api_key_id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
  }),
  id: Type.Optional(Type.String({ maxLength: 100 })),
  changes: Type.Optional(Type.Object({}, { additionalProperties: true })),
  payment: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export const EngineResult = Type.Object({}, { additionalProperties: true, description: "The engine's session (engine.ts Session)." });

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
