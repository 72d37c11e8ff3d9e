/**
 * The checkout engine's shapes (protocol-neutral). Money is integer minor units of `currency`, as
 * both agentic protocols carry it on their wire; the adapters (UCP, ACP, REST) rename fields only.
 */

export type Protocol = 'api' | 'ucp' | 'acp';

/** Who drives a session: only the same agent (its profile URL, or its API key) sees it again. */
export interface AgentRef {
  protocol: Protocol;
  profile_url?: string;
  api_key_id?: string;
  name?: string;
}

export interface LineInput {
  /** A product id, or a variant id of a variable product (UCP's `item.id`, ACP's `item.id`). */
  item_id: string;
  quantity: number;
}

export interface Buyer {
  email?: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
}

/** svc's address shape (orders'): adapters map the protocols' address fields onto it. */
export interface AddressIn {
  name?: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postal_code?: string;
  country: string;
  phone?: string;
}

/** What an agent may set; on update a field left out keeps its value, null clears it. */
export interface SessionChanges {
  line_items?: LineInput[];
  buyer?: Buyer | null;
  shipping_address?: AddressIn | null;
  billing_address?: AddressIn | null;
  shipping_option_id?: string | null;
  discount_codes?: string[];
}

/** Payment handed over at completion. svc never takes card numbers: a PSP token only. */
export interface PaymentInput {
  /** `manual` or `stripe` (the store's adapter when left out). */
  handler?: string;
  /** A Stripe Shared Payment Token (`spt_...`) or PaymentMethod id (`pm_...`). */
  token?: string;
}

export type MessageType = 'error' | 'warning' | 'info';

/**
 * What is missing or wrong. `code` uses ACP's vocabulary (missing, invalid, out_of_stock,
 * not_found, region_restricted, payment_declined, discount_code_invalid, ...); `path` is a JSONPath
 * into the engine's session (`$.line_items[0]`, `$.buyer.email`, `$.discount_codes[1]`).
 */
export interface Message {
  type: MessageType;
  code: string;
  path?: string;
  content: string;
  severity: 'info' | 'low' | 'medium' | 'high' | 'critical';
}

export interface SessionLine {
  id: string;
  item_id: string;
  product_id: string;
  variant_id: string | null;
  title: string;
  sku: string | null;
  image_url: string | null;
  quantity: number;
  /** Units on hand now (0 when the item is unknown). */
  available: number;
  unit_price: number;
  /** unit_price × quantity, before discounts. */
  subtotal: number;
  discount: number;
  tax: number;
  /** subtotal − discount + tax (tax not added when the store's prices include it). */
  total: number;
  weight_grams: number | null;
}

export interface ShippingOption {
  id: string;
  zone_id: string;
  title: string;
  amount: number;
  min_days: number | null;
  max_days: number | null;
  /** The estimate in business days of the store's timezone, as timestamps (UTC). */
  earliest_delivery_time: string | null;
  latest_delivery_time: string | null;
}

export type SessionStatus = 'incomplete' | 'ready_for_complete' | 'requires_escalation' | 'completed' | 'canceled';

export interface Totals {
  subtotal: number;
  discount: number;
  shipping: number;
  tax: number;
  total: number;
}

export interface Session {
  object: 'checkout_session';
  id: string;
  status: SessionStatus;
  channel: Protocol;
  agent: AgentRef;
  currency: string;
  prices_include_tax: boolean;
  line_items: SessionLine[];
  buyer: Buyer | null;
  shipping_address: AddressIn | null;
  billing_address: AddressIn | null;
  shipping_options: ShippingOption[];
  shipping_option_id: string | null;
  /** The codes asked for, in order; `discounts` those that applied and what each took. */
  discount_codes: string[];
  discounts: { code: string; amount: number }[];
  tax_lines: { name: string; percentage: number; amount: number }[];
  totals: Totals;
  messages: Message[];
  /** The adapter completion will charge through (store setting). */
  payment_handler: 'manual' | 'stripe';
  continue_url: string | null;
  order_id: string | null;
  order_number: string | null;
  expired: boolean;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** What a payment adapter answers at completion. */
export type Charged =
  | { kind: 'ok'; status: 'pending' | 'paid'; payment_method: string; reference?: string }
  | { kind: 'escalate'; continue_url: string }
  | { kind: 'declined'; code: 'payment_declined' | 'requires_3ds'; message: string };
