import type { AgenticSettings } from '../settings-store';
import type { AddressIn, Message, Session, SessionChanges } from '../types';

/** ACP 2026-04-17 on the wire: the engine's session in ACP's shapes, and ACP's requests as engine changes. */
export const ACP_VERSION = '2026-04-17';
export const SUPPORTED_VERSIONS = [ACP_VERSION];

/** ACP's flat error (`Error`): only when no session can be answered. */
export const acpError = (
  status: number,
  code: string,
  message: string,
  param?: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  Response.json(
    { type: status >= 500 ? 'processing_error' : 'invalid_request', code, message, ...(param ? { param } : {}), ...extra },
    { status, headers },
  );

const STATUS: Record<string, string> = {
  incomplete: 'not_ready_for_payment',
  ready_for_complete: 'ready_for_payment',
  requires_escalation: 'requires_escalation',
  completed: 'completed',
  canceled: 'canceled',
};

const total = (type: string, display_text: string, amount: number) => ({ type, display_text, amount });

function acpAddress(a: AddressIn) {
  return {
    name: a.name ?? '',
    line_one: a.line1,
    ...(a.line2 ? { line_two: a.line2 } : {}),
    city: a.city,
    state: a.region ?? '',
    country: a.country,
    postal_code: a.postal_code ?? '',
  };
}

/** Engine paths (`$.line_items[0]`, `$.shipping_address`) as ACP's request paths. */
function acpParam(path: string | undefined) {
  if (!path) return undefined;
  return path
    .replace(/^\$\.line_items\[(\d+)\]$/, '$.line_items[$1].item.id')
    .replace(/^\$\.shipping_address/, '$.fulfillment_details.address')
    .replace(/^\$\.shipping_option_id$/, '$.selected_fulfillment_options')
    .replace(/^\$\.discount_codes/, '$.discounts.codes')
    .replace(/^\$\.payment$/, '$.payment_data');
}

function acpMessage(m: Message) {
  const base = { severity: m.severity, content_type: 'plain' as const, content: m.content, ...(acpParam(m.path) ? { param: acpParam(m.path) } : {}) };
  if (m.type === 'info') return { type: 'info' as const, ...base };
  // not_found is an error code ACP has; resolution says who can fix it.
  const resolution = m.code === 'missing' ? 'requires_buyer_input' : 'recoverable';
  return { type: m.type, code: m.code, resolution, ...base };
}

/** The payment handlers the store's adapter offers (none for manual: the order waits for payment). */
export function handlers(settings: AgenticSettings) {
  if (settings.payments.adapter !== 'stripe') return [];
  return [
    {
      id: 'stripe_spt',
      name: 'dev.acp.tokenized.card',
      display_name: 'Card',
      version: '2026-01-22',
      spec: 'https://acp.dev/handlers/tokenized.card',
      requires_delegate_payment: true,
      requires_pci_compliance: false,
      psp: 'stripe',
      config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
      instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
      config: { psp: 'stripe' },
    },
  ];
}

/** The session as ACP's CheckoutSession (CheckoutSessionWithOrder once completed). */
export function toAcp(s: Session, settings: AgenticSettings, origin: string) {
  const lines = s.line_items.map((l) => ({
    id: l.id,
    item: { id: l.item_id },
    quantity: l.quantity,
    name: l.title,
    unit_amount: l.unit_price,
    product_id: l.product_id,
    ...(l.variant_id ? { variant_id: l.variant_id } : {}),
    ...(l.sku ? { sku: l.sku } : {}),
    availability_status: l.available >= l.quantity ? 'in_stock' : 'out_of_stock',
    totals: [
      total('items_base_amount', 'Base Amount', l.subtotal),
      total('discount', 'Discount', l.discount),
      total('subtotal', 'Subtotal', l.subtotal - l.discount),
      total('tax', 'Tax', l.tax),
      total('total', 'Total', l.total),
    ],
  }));
  const t = s.totals;
  const totals = [
    total('items_base_amount', 'Item(s) total', t.subtotal),
    ...(t.discount ? [total('discount', 'Discount', t.discount)] : []),
    total('subtotal', 'Subtotal', t.subtotal - t.discount),
    ...(s.shipping_options.length || t.shipping ? [total('fulfillment', 'Fulfillment', t.shipping)] : []),
    total('tax', 'Tax', t.tax),
    total('total', 'Total', t.total),
  ];
  const rejected = s.messages.flatMap((m) => {
    const n = /^\$\.discount_codes\[(\d+)\]$/.exec(m.path ?? '')?.[1];
    return m.type === 'warning' && n !== undefined ? [{ code: s.discount_codes[Number(n)], reason: m.code, message: m.content }] : [];
  });
  const buyer = s.buyer?.email
    ? {
        email: s.buyer.email,
        ...(s.buyer.first_name ? { first_name: s.buyer.first_name } : {}),
        ...(s.buyer.last_name ? { last_name: s.buyer.last_name } : {}),
        ...(s.buyer.phone ? { phone_number: s.buyer.phone } : {}),
      }
    : undefined;
  const status = s.expired ? 'expired' : STATUS[s.status];
  return {
    id: s.id,
    protocol: { version: ACP_VERSION },
    capabilities: { payment: { handlers: handlers(settings) } },
    ...(buyer ? { buyer } : {}),
    status,
    currency: s.currency.toLowerCase(),
    line_items: lines,
    ...(s.shipping_address
      ? {
          fulfillment_details: {
            ...(s.shipping_address.name ? { name: s.shipping_address.name } : {}),
            ...(s.buyer?.email ? { email: s.buyer.email } : {}),
            ...(s.shipping_address.phone ? { phone_number: s.shipping_address.phone } : {}),
            address: acpAddress(s.shipping_address),
          },
        }
      : {}),
    fulfillment_options: s.shipping_options.map((o) => ({
      type: 'shipping' as const,
      id: o.id,
      title: o.title,
      ...(o.min_days != null && o.max_days != null ? { description: `Arrives in ${o.min_days}-${o.max_days} business days` } : {}),
      ...(o.earliest_delivery_time ? { earliest_delivery_time: o.earliest_delivery_time } : {}),
      ...(o.latest_delivery_time ? { latest_delivery_time: o.latest_delivery_time } : {}),
      totals: [total('total', o.title, o.amount)],
    })),
    ...(s.shipping_option_id
      ? {
          selected_fulfillment_options: [
            { type: 'shipping' as const, option_id: s.shipping_option_id, item_ids: s.line_items.map((l) => l.item_id) },
          ],
        }
      : {}),
    totals,
    messages: s.messages.map(acpMessage),
    links: [],
    ...(s.discount_codes.length
      ? {
          discounts: {
            codes: s.discount_codes,
            applied: s.discounts.map((d) => ({ id: d.code, code: d.code, coupon: { id: d.code, name: d.code }, amount: d.amount })),
            rejected,
          },
        }
      : {}),
    ...(s.continue_url ? { continue_url: s.continue_url } : {}),
    created_at: s.created_at,
    updated_at: s.updated_at,
    expires_at: s.expires_at,
    ...(s.order_id
      ? {
          order: {
            type: 'order',
            id: s.order_id,
            checkout_session_id: s.id,
            ...(s.order_number ? { order_number: s.order_number } : {}),
            permalink_url: `${origin}/acp/orders/${s.order_id}`,
            status: 'created',
          },
        }
      : {}),
  };
}

type Json = Record<string, any>;
export class AcpInvalid extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param: string,
  ) {
    super(message);
  }
}
const invalid = (param: string, message: string, code = 'invalid') => new AcpInvalid(code, message, param);
const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown, param: string, max = 500) => {
  if (typeof v !== 'string' || !v.length || v.length > max) throw invalid(param, `${param} must be a string of 1 to ${max} characters.`);
  return v;
};

function address(a: unknown, param: string, name?: string): AddressIn {
  if (!isObj(a)) throw invalid(param, `${param} must be an address object.`);
  const country = str(a.country, `${param}.country`, 2);
  if (!/^[A-Z]{2}$/.test(country)) throw invalid(`${param}.country`, 'country must be an ISO 3166-1 alpha-2 code, e.g. US.');
  const opt = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  return {
    ...(opt(a.name ?? name) ? { name: opt(a.name ?? name) } : {}),
    line1: str(a.line_one, `${param}.line_one`, 200),
    ...(opt(a.line_two) ? { line2: opt(a.line_two) } : {}),
    city: str(a.city, `${param}.city`, 100),
    ...(opt(a.state) ? { region: opt(a.state) } : {}),
    ...(opt(a.postal_code) ? { postal_code: opt(a.postal_code) } : {}),
    country,
  };
}

function buyerOf(b: unknown) {
  if (!isObj(b)) throw invalid('$.buyer', 'buyer must be an object.');
  const out: Json = {};
  if (b.email !== undefined) {
    const email = str(b.email, '$.buyer.email', 254);
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalid('$.buyer.email', 'buyer.email must be an email address.');
    out.email = email;
  }
  if (b.first_name !== undefined) out.first_name = str(b.first_name, '$.buyer.first_name', 100);
  if (b.last_name !== undefined) out.last_name = str(b.last_name, '$.buyer.last_name', 100);
  if (b.full_name !== undefined && !out.first_name) {
    const [first, ...rest] = str(b.full_name, '$.buyer.full_name', 200).split(' ');
    out.first_name = first;
    if (rest.length) out.last_name = rest.join(' ');
  }
  if (b.phone_number !== undefined) out.phone = str(b.phone_number, '$.buyer.phone_number', 40);
  return out;
}

/**
 * A create or update request as engine changes. Line items take `quantity` (ACP issue #264: the
 * schema forgot it; default 1). Unknown fields ACP defines (capabilities, affiliate_attribution,
 * metadata, order_notes...) are accepted and not used.
 */
export function changesOf(body: Json, create: boolean): SessionChanges {
  const c: SessionChanges = {};
  if (create && !Array.isArray(body.line_items)) throw invalid('$.line_items', 'line_items is required: at least one item.', 'missing');
  if (body.line_items !== undefined) {
    if (!Array.isArray(body.line_items) || body.line_items.length > 100)
      throw invalid('$.line_items', 'line_items must be a list of up to 100 items.');
    c.line_items = body.line_items.map((l: unknown, n: number) => {
      if (!isObj(l)) throw invalid(`$.line_items[${n}]`, 'Each line item is an object {id, quantity}.');
      const id = str(l.id ?? l.item?.id, `$.line_items[${n}].id`, 100);
      const quantity = l.quantity ?? 1;
      if (!Number.isInteger(quantity) || quantity < 1 || quantity > 100000)
        throw invalid(`$.line_items[${n}].quantity`, 'quantity must be a whole number from 1 to 100000.');
      return { item_id: id, quantity };
    });
  }
  if (body.buyer !== undefined) c.buyer = buyerOf(body.buyer);
  const fd = body.fulfillment_details;
  if (fd !== undefined) {
    if (!isObj(fd)) throw invalid('$.fulfillment_details', 'fulfillment_details must be an object.');
    if (fd.address !== undefined) c.shipping_address = address(fd.address, '$.fulfillment_details.address', fd.name);
    if (fd.email !== undefined) c.buyer = { ...(c.buyer ?? {}), ...buyerOf({ email: fd.email }) };
  }
  if (Array.isArray(body.selected_fulfillment_options)) {
    const first = body.selected_fulfillment_options[0];
    c.shipping_option_id = first ? str(first.option_id, '$.selected_fulfillment_options[0].option_id', 100) : null;
  }
  const codes = body.discounts?.codes ?? body.coupons;
  if (codes !== undefined) {
    if (!Array.isArray(codes) || codes.length > 5 || codes.some((x: unknown) => typeof x !== 'string' || !x || x.length > 50))
      throw invalid('$.discounts.codes', 'discounts.codes must be a list of up to 5 codes.');
    c.discount_codes = codes;
  }
  return c;
}

const CARD_KEYS = /^(number|card_number|pan|cvc|cvv|cvv2|exp_month|exp_year|expiry|security_code)$/i;

/**
 * Whether a request carries raw card data: svc never handles card numbers (no delegate_payment),
 * so a card number (13 to 19 digits), a CVC or an expiry anywhere in the body is refused.
 */
export function rawCardPath(v: unknown, path = '$'): string | undefined {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const p = rawCardPath(x, `${path}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (!isObj(v)) return undefined;
  for (const [k, x] of Object.entries(v)) {
    if (CARD_KEYS.test(k) && (typeof x === 'string' || typeof x === 'number')) return `${path}.${k}`;
    if (typeof x === 'string' && /^\d{13,19}$/.test(x.replace(/[ -]/g, '')) && /card|pan|number/i.test(k)) return `${path}.${k}`;
    const p = rawCardPath(x, `${path}.${k}`);
    if (p) return p;
  }
  return undefined;
}
