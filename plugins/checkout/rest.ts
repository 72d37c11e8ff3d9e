import { errors, fromMinor } from '../../core/sdk';
import type { AgentRef, Session } from './types';
import type { CheckoutCtx } from './sessions';

/** The REST channel's agent: the API key (or user) calling. */
export function restAgent(ctx: CheckoutCtx): AgentRef {
  const p = ctx.principal as { kind: string; keyId?: string; userId?: string; id?: string };
  return { protocol: 'api', api_key_id: p.keyId ?? `${p.kind}:${p.userId ?? p.id ?? ''}` };
}

/** svc's own API keeps decimals (ARCHITECTURE, money): the engine's session with amounts converted. */
export function toRest(s: Session) {
  const m = (minor: number) => fromMinor(minor, s.currency);
  return {
    ...s,
    line_items: s.line_items.map((l) => ({
      ...l,
      unit_price: m(l.unit_price),
      subtotal: m(l.subtotal),
      discount: m(l.discount),
      tax: m(l.tax),
      total: m(l.total),
    })),
    shipping_options: s.shipping_options.map((o) => ({ ...o, amount: m(o.amount) })),
    discounts: s.discounts.map((d) => ({ code: d.code, amount: m(d.amount) })),
    tax_lines: s.tax_lines.map((t) => ({ ...t, amount: m(t.amount) })),
    totals: {
      subtotal: m(s.totals.subtotal),
      discount: m(s.totals.discount),
      shipping: m(s.totals.shipping),
      tax: m(s.totals.tax),
      total: m(s.totals.total),
    },
  };
}

/**
 * svc's REST convention for ids a body names (SPEC 7, the BOLA sweep): an unknown item, or another
 * store's, is 404 naming `line_items.<n>.item_id`; the protocols keep it as a session message.
 */
export function refuseUnknownItems(s: Session): Session {
  const unknown = s.messages.find((m) => m.code === 'not_found' && /^\$\.line_items\[\d+\]$/.test(m.path ?? ''));
  if (unknown) {
    const n = /\[(\d+)\]/.exec(unknown.path!)![1];
    throw errors.notFound(`item: '${s.line_items[Number(n)]?.item_id}'`, `line_items.${n}.item_id`);
  }
  return s;
}
