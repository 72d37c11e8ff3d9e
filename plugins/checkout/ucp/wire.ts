/**
 * The UCP wire (2026-04-08) over the checkout engine's protocol-neutral session: requests become
 * SessionChanges, sessions and orders become UCP `checkout` and `order` objects. Money is integer
 * minor units on both sides (the engine keeps them so), currencies upper-case ISO 4217.
 *
 * Fixed ids: svc ships one parcel to one address, so the fulfillment tree is always one method
 * (`shipping_1`), one destination (`dest_1`) and one group (`package_1`) holding every line.
 */
import type { AddressIn, Message, PaymentInput, Session, SessionChanges } from '../engine';
import { ucpFail } from './errors';

export const METHOD_ID = 'shipping_1';
export const DESTINATION_ID = 'dest_1';
export const GROUP_ID = 'package_1';

type Json = Record<string, any>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A request body's checkout: the body itself, or its `checkout` member (the MCP shape, and signatures.md's example). */
export function checkoutOf(body: unknown): Json {
  if (!isObj(body)) throw ucpFail('invalid_request', 'The body must be a JSON object (a checkout).');
  return isObj(body.checkout) ? body.checkout : body;
}

/** UCP postal address -> svc's. */
export function toAddress(a: Json, path: string): AddressIn {
  const str = (k: string) => (typeof a[k] === 'string' && a[k].trim() ? (a[k].trim() as string) : undefined);
  const line1 = str('street_address');
  const city = str('address_locality');
  const country = str('address_country')?.toUpperCase();
  if (!line1 || !city || !country) {
    throw ucpFail('invalid_request', `${path} needs street_address, address_locality and address_country.`);
  }
  const name = [str('first_name'), str('last_name')].filter(Boolean).join(' ');
  return {
    line1,
    city,
    country,
    ...(name ? { name } : {}),
    ...(str('extended_address') ? { line2: str('extended_address') } : {}),
    ...(str('address_region') ? { region: str('address_region') } : {}),
    ...(str('postal_code') ? { postal_code: str('postal_code') } : {}),
    ...(str('phone_number') ? { phone: str('phone_number') } : {}),
  };
}

/** svc's address -> UCP postal address. */
export function fromAddress(a: AddressIn): Json {
  const [first, ...rest] = (a.name ?? '').split(' ');
  return {
    street_address: a.line1,
    ...(a.line2 ? { extended_address: a.line2 } : {}),
    address_locality: a.city,
    ...(a.region ? { address_region: a.region } : {}),
    ...(a.postal_code ? { postal_code: a.postal_code } : {}),
    address_country: a.country,
    ...(first ? { first_name: first } : {}),
    ...(rest.length ? { last_name: rest.join(' ') } : {}),
    ...(a.phone ? { phone_number: a.phone } : {}),
  };
}

function lineItemsOf(c: Json): SessionChanges['line_items'] {
  if (!Array.isArray(c.line_items)) throw ucpFail('invalid_request', 'line_items is required: an array of {item: {id}, quantity}.');
  return c.line_items.map((l: unknown, n: number) => {
    const id = isObj(l) && isObj(l.item) ? l.item.id : undefined;
    const quantity = isObj(l) ? l.quantity : undefined;
    if (typeof id !== 'string' || !id) throw ucpFail('invalid_request', `line_items[${n}].item.id is required.`);
    if (!Number.isInteger(quantity) || (quantity as number) < 1) {
      throw ucpFail('invalid_request', `line_items[${n}].quantity must be a whole number of at least 1.`);
    }
    return { item_id: id, quantity: quantity as number };
  });
}

/**
 * A create or update body as engine changes. Update is a full replacement (checkout.md "Update
 * Checkout"): what the agent leaves out is cleared, except a destination named only by the id svc
 * gave it, which keeps the address on file (the spec's own examples resend it that way).
 */
export function changesOf(body: unknown, current?: Session): SessionChanges {
  const c = checkoutOf(body);
  const changes: SessionChanges = { line_items: lineItemsOf(c) };
  if (c.buyer !== undefined && !isObj(c.buyer)) throw ucpFail('invalid_request', 'buyer must be an object.');
  const b = c.buyer as Json | undefined;
  const buyer = b
    ? Object.fromEntries(
        [
          ['email', b.email],
          ['first_name', b.first_name],
          ['last_name', b.last_name],
          ['phone', b.phone_number],
        ].filter(([, v]) => typeof v === 'string' && v),
      )
    : undefined;
  changes.buyer = buyer && Object.keys(buyer).length ? buyer : current ? null : undefined;

  const method =
    isObj(c.fulfillment) && Array.isArray(c.fulfillment.methods)
      ? c.fulfillment.methods.find((m: unknown) => isObj(m) && (m.type ?? 'shipping') === 'shipping')
      : undefined;
  if (c.fulfillment !== undefined && !isObj(c.fulfillment)) throw ucpFail('invalid_request', 'fulfillment must be an object.');
  let address: AddressIn | null = null;
  let option: string | null = null;
  if (isObj(method)) {
    const dests = Array.isArray(method.destinations) ? method.destinations.filter(isObj) : [];
    const chosen = dests.find((d: Json) => d.id !== undefined && d.id === method.selected_destination_id) ?? dests[0];
    if (chosen) {
      const byIdOnly = chosen.id === DESTINATION_ID && !chosen.street_address;
      address = byIdOnly ? (current?.shipping_address ?? null) : toAddress(chosen, '$.fulfillment.methods[0].destinations[0]');
    }
    const group = Array.isArray(method.groups) ? method.groups.find(isObj) : undefined;
    if (group && typeof group.selected_option_id === 'string') option = group.selected_option_id;
  }
  if (address || current) changes.shipping_address = address;
  if (option || current) changes.shipping_option_id = option;

  if (c.discounts !== undefined && !(isObj(c.discounts) && (c.discounts.codes === undefined || Array.isArray(c.discounts.codes)))) {
    throw ucpFail('invalid_request', 'discounts must be {codes: [string]}.');
  }
  const codes =
    isObj(c.discounts) && Array.isArray(c.discounts.codes) ? c.discounts.codes.filter((x: unknown) => typeof x === 'string' && x) : undefined;
  if (codes || current) changes.discount_codes = codes ?? [];
  return changes;
}

/** Keys no request may carry anywhere: svc never takes card numbers (no delegate_payment, PCI scope). */
const CARD_KEYS = new Set(['number', 'card_number', 'cvc', 'cvv', 'cvv2', 'cryptogram', 'pan', 'fpan']);

/** Throws when any part of the body carries raw card data. */
export function refuseCardData(value: unknown, path = '$'): void {
  if (Array.isArray(value)) return value.forEach((v, i) => refuseCardData(v, `${path}[${i}]`));
  if (!isObj(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (CARD_KEYS.has(k.toLowerCase()) && v !== null && v !== '') {
      throw ucpFail('invalid_request', `${path}.${k}: svc never takes raw card data; pay with a payment handler's token.`);
    }
    refuseCardData(v, `${path}.${k}`);
  }
}

/** A complete body's payment: the selected instrument's handler and its token credential. */
export function paymentOf(body: unknown): PaymentInput {
  refuseCardData(body);
  const c = checkoutOf(body);
  const instruments: unknown[] = isObj(c.payment) && Array.isArray(c.payment.instruments) ? c.payment.instruments : [];
  const chosen = (instruments.find((i) => isObj(i) && i.selected === true) ?? instruments[0]) as Json | undefined;
  if (!chosen) return {};
  const token = isObj(chosen.credential) && typeof chosen.credential.token === 'string' ? chosen.credential.token : undefined;
  return { ...(typeof chosen.handler_id === 'string' ? { handler: chosen.handler_id } : {}), ...(token ? { token } : {}) };
}

/** Engine JSONPaths (over its session) -> UCP's (over the checkout). */
function pathOf(p: string | undefined): string | undefined {
  if (!p) return undefined;
  return p
    .replace(/^\$\.shipping_address.*/, `$.fulfillment.methods[0].destinations`)
    .replace(/^\$\.shipping_option_id/, `$.fulfillment.methods[0].groups[0].selected_option_id`)
    .replace(/^\$\.discount_codes/, '$.discounts.codes')
    .replace(/^\$\.buyer\.phone$/, '$.buyer.phone_number');
}

const CODES: Record<string, string> = { not_found: 'item_unavailable', payment_declined: 'payment_failed' };

export function toMessage(m: Message): Json {
  const path = pathOf(m.path);
  const base = { ...(path ? { path } : {}), content: m.content };
  if (m.type === 'error')
    return { type: 'error', code: CODES[m.code] ?? m.code, ...base, severity: m.severity === 'critical' ? 'unrecoverable' : 'recoverable' };
  if (m.type === 'warning') return { type: 'warning', code: CODES[m.code] ?? m.code, ...base };
  return { type: 'info', ...(m.code ? { code: m.code } : {}), ...base };
}

const total = (type: string, amount: number, display_text?: string) => ({ type, amount, ...(display_text ? { display_text } : {}) });

/**
 * The session's totals as UCP lists them: every entry but `total` adds up to `total` (the
 * platform checks it before it completes). Tax is left out of the sum when prices include it.
 */
export function totalsOf(s: Pick<Session, 'totals' | 'prices_include_tax' | 'shipping_option_id'>): Json[] {
  const t = s.totals;
  const out = [total('subtotal', t.subtotal)];
  if (t.discount > 0) out.push(total('discount', -t.discount));
  if (s.shipping_option_id) out.push(total('fulfillment', t.shipping));
  if (t.tax > 0 && !s.prices_include_tax) out.push(total('tax', t.tax));
  out.push(total('total', t.total));
  return out;
}

function fulfillmentOf(s: Session): Json | undefined {
  if (!s.shipping_address && !s.shipping_options.length) return undefined;
  const lineIds = s.line_items.map((l) => l.id);
  const options = s.shipping_options.map((o) => ({
    id: o.id,
    title: o.title,
    ...(o.min_days !== null && o.max_days !== null ? { description: `Arrives in ${o.min_days}-${o.max_days} business days` } : {}),
    ...(o.earliest_delivery_time ? { earliest_fulfillment_time: o.earliest_delivery_time } : {}),
    ...(o.latest_delivery_time ? { latest_fulfillment_time: o.latest_delivery_time } : {}),
    totals: [total('total', o.amount)],
  }));
  return {
    methods: [
      {
        id: METHOD_ID,
        type: 'shipping',
        line_item_ids: lineIds,
        ...(s.shipping_address
          ? { selected_destination_id: DESTINATION_ID, destinations: [{ id: DESTINATION_ID, ...fromAddress(s.shipping_address) }] }
          : { destinations: [] }),
        groups: [{ id: GROUP_ID, line_item_ids: lineIds, ...(s.shipping_option_id ? { selected_option_id: s.shipping_option_id } : {}), options }],
      },
    ],
  };
}

export interface Envelope {
  version: string;
  capabilities: Record<string, { version: string }[]>;
  payment_handlers: Record<string, Json[]>;
}

/** An engine session as a UCP checkout, inside its `ucp` envelope. */
export function toCheckout(s: Session, env: Envelope, orderUrl: (orderId: string) => string): Json {
  const has = (cap: string) => cap in env.capabilities;
  const messages = s.messages.map(toMessage);
  if (s.status === 'requires_escalation' && !messages.some((m) => m.severity === 'requires_buyer_input' || m.severity === 'requires_buyer_review')) {
    messages.push({
      type: 'error',
      code: 'payment_required',
      content: "Finish the payment on the store's checkout page (continue_url).",
      severity: 'requires_buyer_input',
    });
  }
  const b = s.buyer;
  const buyer = b
    ? Object.fromEntries(
        Object.entries({ email: b.email, first_name: b.first_name, last_name: b.last_name, phone_number: b.phone }).filter(([, v]) => v),
      )
    : undefined;
  const fulfillment = has('dev.ucp.shopping.fulfillment') ? fulfillmentOf(s) : undefined;
  return {
    ucp: { version: env.version, status: 'success', capabilities: env.capabilities, payment_handlers: env.payment_handlers },
    id: s.id,
    status: s.status,
    currency: s.currency.toUpperCase(),
    line_items: s.line_items.map((l) => ({
      id: l.id,
      item: { id: l.item_id, title: l.title, price: l.unit_price, ...(l.image_url ? { image_url: l.image_url } : {}) },
      quantity: l.quantity,
      totals: [
        total('subtotal', l.subtotal),
        ...(l.discount > 0 ? [total('discount', -l.discount)] : []),
        ...(l.tax > 0 && !s.prices_include_tax ? [total('tax', l.tax)] : []),
        total('total', l.total),
      ],
    })),
    ...(buyer && Object.keys(buyer).length ? { buyer } : {}),
    totals: totalsOf(s),
    messages,
    links: [],
    expires_at: s.expires_at,
    ...(s.continue_url && s.status !== 'completed' && s.status !== 'canceled' ? { continue_url: s.continue_url } : {}),
    ...(fulfillment ? { fulfillment } : {}),
    ...(has('dev.ucp.shopping.discount')
      ? { discounts: { codes: s.discount_codes, applied: s.discounts.map((d) => ({ code: d.code, title: d.code, amount: d.amount })) } }
      : {}),
    ...(s.order_id ? { order: { id: s.order_id, ...(s.order_number ? { label: s.order_number } : {}), permalink_url: orderUrl(s.order_id) } } : {}),
  };
}
