import { fromMinor, type Ctx } from '../../core/sdk';
import { priceSession } from './price';
import { charge } from './payments';
import { assertOpen, sessionRow, toSession, viewOf } from './sessions';
import { agenticSettings } from './settings-store';
import type { AgentRef, PaymentInput, Session } from './types';

/**
 * Completes a session into an order, in the caller's transaction. The session row is locked, the
 * cart priced again with every product and its stock locked in orders' lock order (so the units
 * counted are the units the order takes: agents racing for the last units never oversell), the
 * payment taken through the store's adapter, and the order created through orders' own action
 * with `channel` and `agent`; `checkout.completed` carries the order. A session that is not ready
 * (something missing, short stock, a declined payment) is answered with its messages, no order.
 */
export async function completeSession(ctx: Ctx, agent: AgentRef, id: string, payment: PaymentInput = {}): Promise<Session> {
  const now = ctx.clock.now();
  const r = await sessionRow(ctx.db, ctx.store.id, agent, id, true);
  assertOpen(r, now);
  const priced = await priceSession(ctx.db, ctx.store.id, r.state, { now, lock: true });
  let { status, view } = await viewOf(ctx, r.state, priced);
  const save = async (st: string, v: object, orderId: string | null = null) => {
    const [u] = await ctx.db.query(
      `UPDATE checkout_sessions SET status = $3, view = $4::text::jsonb, order_id = $5, updated_at = $6 WHERE store_id = $1 AND id = $2 RETURNING *`,
      [ctx.store.id, r.id, st, JSON.stringify(v), orderId, now],
    );
    return toSession(u, now);
  };
  if (status !== 'ready_for_complete') return save(status, view);
  const settings = await agenticSettings(ctx.db, ctx.store.id);
  const paid = await charge(ctx, settings, {
    handler: payment.handler,
    token: payment.token,
    amount: priced.totals.total,
    currency: priced.currency,
    sessionId: r.id,
  });
  if (paid.kind === 'escalate') return save('requires_escalation', { ...view, continue_url: paid.continue_url });
  if (paid.kind === 'declined') {
    view = { ...view, messages: [...view.messages, { type: 'error', code: paid.code, content: paid.message, path: '$.payment', severity: 'high' }] };
    return save('incomplete', view);
  }
  const option = priced.shipping_options.find((o) => o.id === priced.shipping_option_id);
  const st = r.state;
  const buyer = st.buyer ?? {};
  const name = [buyer.first_name, buyer.last_name].filter(Boolean).join(' ');
  const order = await ctx.call('orders.create_order', {
    line_items: priced.orderable.map((l) => ({
      product_id: l.product_id,
      ...(l.variant_id ? { variant_id: l.variant_id } : {}),
      quantity: l.quantity,
    })),
    ...(priced.discounts.length ? { discount_codes: priced.discounts.map((d) => d.code) } : {}),
    ...(priced.customer_id ? { customer_id: priced.customer_id } : {}),
    ...(st.shipping_address ? { shipping_address: st.shipping_address } : {}),
    ...(st.billing_address ? { billing_address: st.billing_address } : {}),
    ...(option ? { shipping: { method: option.title, amount: fromMinor(option.amount, priced.currency) } } : {}),
    payment_method: paid.payment_method,
    status: paid.status,
    channel: agent.protocol,
    agent: cleanAgent(agent),
    metadata: {
      checkout_session_id: r.id,
      ...(buyer.email ? { buyer_email: buyer.email } : {}),
      ...(name ? { buyer_name: name.slice(0, 500) } : {}),
      ...(paid.reference ? { payment_reference: paid.reference } : {}),
    },
  });
  ctx.emit('checkout.completed', order);
  return save('completed', { ...view, order_number: order.order_number }, order.id);
}

/** The agent as orders keep it: only the fields it gave. */
const cleanAgent = (a: AgentRef) => ({
  protocol: a.protocol,
  ...(a.profile_url ? { profile_url: a.profile_url } : {}),
  ...(a.api_key_id ? { api_key_id: a.api_key_id } : {}),
  ...(a.name ? { name: a.name } : {}),
});
