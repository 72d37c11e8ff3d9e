import { fromMinor, SvcError, type Ctx, type Row } from '../../core/sdk';
import { priceSession } from './price';
import { charge } from './payments';
import { assertOpen, sessionRow, toSession, viewOf } from './sessions';
import { agenticSettings } from './settings-store';
import type { AgentRef, Charged, PaymentInput, Session } from './types';

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
  const settings = await agenticSettings(ctx.db, ctx.store.id);
  const save = async (st: string, v: object, orderId: string | null = null) => {
    const [u] = await ctx.db.query(
      `UPDATE checkout_sessions SET status = $3, view = $4::text::jsonb, order_id = $5, updated_at = $6 WHERE store_id = $1 AND id = $2 RETURNING *`,
      [ctx.store.id, r.id, st, JSON.stringify(v), orderId, now],
    );
    return toSession(u, now);
  };
  // Manual payments charge nothing here, so the order itself is the last word: orders' own action
  // locks the products and their stock and refuses short stock or a code that stopped applying
  // before it writes or emits anything; under a savepoint, such a refusal is undone and the session
  // priced again to say why. A charged payment (Stripe) needs the amount first: the slow path.
  const fast = settings.payments.adapter === 'manual' && settings.payments.manual_mode === 'pending' && r.status === 'ready_for_complete';
  if (fast && !payment.handler) {
    await ctx.db.query('SAVEPOINT checkout_complete');
    try {
      const order = await placeOrder(
        ctx,
        agent,
        r,
        r.view._order,
        r.view.shipping_options.find((o: { id: string }) => o.id === r.view.shipping_option_id),
        {
          kind: 'ok',
          status: 'pending',
          payment_method: 'manual',
        },
        !!settings.acp.webhook_url,
      );
      await ctx.db.query('RELEASE SAVEPOINT checkout_complete');
      return save('completed', { ...r.view, order_number: order.order_number }, order.id);
    } catch (e) {
      if (!(e instanceof SvcError) || e.status >= 500) throw e;
      await ctx.db.query('ROLLBACK TO SAVEPOINT checkout_complete');
    }
  }
  const priced = await priceSession(ctx.db, ctx.store.id, r.state, { now, lock: true });
  let { status, view } = await viewOf(ctx, r.state, priced, settings);
  if (status !== 'ready_for_complete') return save(status, view);
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
  const order = await placeOrder(
    ctx,
    agent,
    r,
    { lines: priced.orderable, customer_id: priced.customer_id, codes: priced.discounts.map((d) => d.code) },
    option,
    paid,
    !!settings.acp.webhook_url,
  );
  return save('completed', { ...view, order_number: order.order_number }, order.id);
}

/** The order, through orders' own action, with channel and agent; checkout.completed carries it. */
async function placeOrder(
  ctx: Ctx,
  agent: AgentRef,
  r: Row,
  o: { lines: { product_id: string; variant_id: string | null; quantity: number }[]; customer_id: string | null; codes?: string[] },
  option: { title: string; amount: number } | undefined,
  paid: Extract<Charged, { kind: 'ok' }>,
  acpWebhook: boolean,
) {
  const st = r.state;
  const codes = o.codes ?? (r.view.discounts as { code: string }[]).map((d) => d.code);
  const currency: string = r.view.currency;
  const buyer = st.buyer ?? {};
  const name = [buyer.first_name, buyer.last_name].filter(Boolean).join(' ');
  const order = await ctx.call('orders.create_order', {
    line_items: o.lines.map((l) => ({
      product_id: l.product_id,
      ...(l.variant_id ? { variant_id: l.variant_id } : {}),
      quantity: l.quantity,
    })),
    ...(codes.length ? { discount_codes: codes } : {}),
    ...(o.customer_id ? { customer_id: o.customer_id } : {}),
    ...(st.shipping_address ? { shipping_address: st.shipping_address } : {}),
    ...(st.billing_address ? { billing_address: st.billing_address } : {}),
    ...(option ? { shipping: { method: option.title, amount: fromMinor(option.amount, currency) } } : {}),
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
  if (agent.protocol === 'acp' && acpWebhook) await ctx.enqueue('acp_order_created', { order_id: order.id });
  return order;
}

/** The agent as orders keep it: only the fields it gave. */
const cleanAgent = (a: AgentRef) => ({
  protocol: a.protocol,
  ...(a.profile_url ? { profile_url: a.profile_url } : {}),
  ...(a.api_key_id ? { api_key_id: a.api_key_id } : {}),
  ...(a.name ? { name: a.name } : {}),
});
