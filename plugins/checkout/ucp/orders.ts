/**
 * svc's orders as UCP `order` objects (order.md): the current-state snapshot, the same for Get
 * Order and every webhook. svc's order API speaks decimals; the UCP wire integer minor units.
 */
import { decimalsOf } from '../../../core/sdk';
import { fromAddress } from './wire';

type Json = Record<string, any>;

/** A decimal amount of `currency` as minor units (svc stores them so: the round trip is exact). */
const minor = (amount: number, currency: string) => Math.round(amount * 10 ** decimalsOf(currency));

/** The order's fulfilled units per line, from its shipments. */
function fulfilledUnits(order: Json): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of order.fulfillments ?? []) for (const l of f.line_items ?? []) out.set(l.line_item_id, (out.get(l.line_item_id) ?? 0) + l.quantity);
  return out;
}

function lineStatus(total: number, fulfilled: number) {
  if (total === 0) return 'removed';
  if (fulfilled >= total) return 'fulfilled';
  return fulfilled > 0 ? 'partial' : 'processing';
}

/** An svc order (as orders.get_order answers it) as a UCP order, without its `ucp` envelope. */
export function toUcpOrder(order: Json, permalink: string): Json {
  const cur = order.currency as string;
  const m = (n: number) => minor(n, cur);
  const fulfilled = fulfilledUnits(order);
  const shipping = m(order.shipping_total ?? 0);
  const lines = (order.line_items as Json[]).map((l) => {
    const totalQty = l.quantity - (l.quantity_refunded ?? 0);
    const done = Math.min(fulfilled.get(l.id) ?? 0, totalQty);
    const sub = m(l.unit_price * l.quantity);
    return {
      id: l.id,
      item: { id: l.variant_id ?? l.product_id, title: l.name, price: m(l.unit_price) },
      quantity: { original: l.quantity, total: totalQty, fulfilled: done },
      totals: [
        { type: 'subtotal', amount: sub },
        ...(l.discount > 0 ? [{ type: 'discount', amount: -m(l.discount) }] : []),
        ...(l.tax > 0 && !order.prices_include_tax ? [{ type: 'tax', amount: m(l.tax) }] : []),
        { type: 'total', amount: m(l.total) },
      ],
      status: lineStatus(totalQty, done),
    };
  });
  const totals = [
    { type: 'subtotal', amount: m(order.subtotal) },
    ...(order.discount_total > 0 ? [{ type: 'discount', amount: -m(order.discount_total) }] : []),
    ...(order.shipping_method || shipping > 0 ? [{ type: 'fulfillment', amount: shipping }] : []),
    ...(order.tax_total > 0 && !order.prices_include_tax ? [{ type: 'tax', amount: m(order.tax_total) }] : []),
    { type: 'total', amount: m(order.total) },
  ];
  const expectations = order.shipping_address
    ? [
        {
          id: 'exp_1',
          line_items: lines.filter((l) => l.quantity.total > 0).map((l) => ({ id: l.id, quantity: l.quantity.total })),
          method_type: 'shipping',
          destination: fromAddress(order.shipping_address),
          ...(order.shipping_method ? { description: order.shipping_method } : {}),
          fulfillable_on: 'now',
        },
      ].filter((e) => e.line_items.length)
    : [];
  const events = (order.fulfillments ?? []).map((f: Json) => ({
    id: f.id,
    occurred_at: f.created_at,
    type: 'shipped',
    line_items: (f.line_items ?? []).map((l: Json) => ({ id: l.line_item_id, quantity: l.quantity })),
    ...(f.tracking_number ? { tracking_number: f.tracking_number } : {}),
    ...(f.tracking_url ? { tracking_url: f.tracking_url } : {}),
    ...(f.carrier ? { carrier: f.carrier } : {}),
  }));
  const adjustments = [
    ...(order.refunds ?? []).map((r: Json) => ({
      id: r.id,
      type: 'refund',
      occurred_at: r.created_at,
      status: 'completed',
      line_items: (r.lines ?? []).filter((l: Json) => l.quantity > 0).map((l: Json) => ({ id: l.line_item_id, quantity: -l.quantity })),
      totals: [{ type: 'total', amount: -m(r.amount) }],
      ...(r.reason ? { description: r.reason } : {}),
    })),
    ...(order.cancelled_at
      ? [
          {
            id: `cancel_${order.id}`,
            type: 'cancellation',
            occurred_at: order.cancelled_at,
            status: 'completed',
            ...(order.cancel_reason ? { description: order.cancel_reason } : {}),
          },
        ]
      : []),
  ];
  return {
    id: order.id,
    label: order.order_number,
    checkout_id: order.metadata?.checkout_session_id ?? order.id,
    permalink_url: permalink,
    currency: cur.toUpperCase(),
    line_items: lines,
    fulfillment: { expectations, events },
    adjustments,
    totals,
  };
}
