/**
 * svc's side of UCP discovery and negotiation (overview.md "Profile Structure", "Negotiation
 * Protocol"): the business profile at `/.well-known/ucp`, and the capability intersection with an
 * agent's profile that every response's `ucp` envelope carries.
 */
import type { AgenticSettings } from '../engine';
import type { AgentProfile, Capability } from './profiles';
import { UCP_VERSION } from './profiles';
import type { Jwk } from './signatures';
import type { Envelope } from './wire';

type Json = Record<string, any>;

const SPEC = `https://ucp.dev/${UCP_VERSION}/specification`;
const SCHEMAS = `https://ucp.dev/${UCP_VERSION}/schemas`;

/** The capabilities svc implements, as the business profile declares them. */
export const BUSINESS_CAPABILITIES: Record<string, Capability[]> = {
  'dev.ucp.shopping.checkout': [{ version: UCP_VERSION, spec: `${SPEC}/checkout`, schema: `${SCHEMAS}/shopping/checkout.json` }],
  'dev.ucp.shopping.fulfillment': [
    { version: UCP_VERSION, spec: `${SPEC}/fulfillment`, schema: `${SCHEMAS}/shopping/fulfillment.json`, extends: 'dev.ucp.shopping.checkout' },
  ],
  'dev.ucp.shopping.discount': [
    { version: UCP_VERSION, spec: `${SPEC}/discount`, schema: `${SCHEMAS}/shopping/discount.json`, extends: 'dev.ucp.shopping.checkout' },
  ],
  'dev.ucp.shopping.order': [{ version: UCP_VERSION, spec: `${SPEC}/order`, schema: `${SCHEMAS}/shopping/order.json` }],
  'dev.ucp.shopping.catalog.search': [{ version: UCP_VERSION, spec: `${SPEC}/catalog/search`, schema: `${SCHEMAS}/shopping/catalog_search.json` }],
  'dev.ucp.shopping.catalog.lookup': [{ version: UCP_VERSION, spec: `${SPEC}/catalog/lookup`, schema: `${SCHEMAS}/shopping/catalog_lookup.json` }],
};

/** Which root capability each operation's response answers for (overview.md "Response Capability Selection"). */
export type Root = 'dev.ucp.shopping.checkout' | 'dev.ucp.shopping.order' | 'dev.ucp.shopping.catalog.search' | 'dev.ucp.shopping.catalog.lookup';

/**
 * The payment handlers of the store's adapter (payments.adapter): `manual` places the order
 * awaiting payment (or hands the buyer to continue_url), `stripe` charges a Shared Payment Token
 * or PaymentMethod id through the store's Stripe account.
 */
export function paymentHandlers(settings: AgenticSettings, docs: string): Record<string, Json[]> {
  if (settings.payments.adapter === 'stripe') {
    return {
      'com.stripe.payment_token': [
        {
          id: 'stripe',
          version: UCP_VERSION,
          spec: docs,
          available_instruments: [{ type: 'card' }],
          config: { psp: 'stripe', credential_types: ['shared_payment_token', 'payment_method'] },
        },
      ],
    };
  }
  return {
    'dev.svc.manual': [
      {
        id: 'manual',
        version: UCP_VERSION,
        spec: docs,
        available_instruments: [{ type: 'offline' }],
        config: { mode: settings.payments.manual_mode },
      },
    ],
  };
}

/** `/.well-known/ucp` for one store: services at this origin, capabilities, handlers, keys. */
export function businessProfile(origin: string, settings: AgenticSettings, keys: Jwk[]): Json {
  const service = (transport: 'rest' | 'mcp', endpoint: string, schema: string) => ({
    version: UCP_VERSION,
    spec: `${SPEC}/overview`,
    transport,
    endpoint,
    schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/${schema}`,
  });
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        'dev.ucp.shopping': [service('rest', `${origin}/ucp/v1`, 'rest.openapi.json'), service('mcp', `${origin}/ucp/mcp`, 'mcp.openrpc.json')],
      },
      capabilities: BUSINESS_CAPABILITIES,
      payment_handlers: paymentHandlers(settings, `${origin}/docs`),
    },
    signing_keys: keys,
  };
}

const parentsOf = (c: Capability) => (c.extends === undefined ? [] : Array.isArray(c.extends) ? c.extends : [c.extends]);

/**
 * The intersection (overview.md "Intersection Algorithm"): capabilities both sides name at a
 * mutual version (the highest), extensions whose parents all left pruned until nothing changes.
 */
export function intersect(business: Record<string, Capability[]>, platform: Record<string, Capability[]>): Map<string, Capability> {
  const out = new Map<string, Capability>();
  for (const [name, entries] of Object.entries(business)) {
    const theirs = new Set((platform[name] ?? []).map((c) => c.version));
    const mutual = entries.filter((c) => theirs.has(c.version)).sort((a, b) => b.version.localeCompare(a.version));
    if (mutual.length) out.set(name, mutual[0]);
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, cap] of out) {
      const parents = parentsOf(cap);
      if (parents.length && !parents.some((p) => out.has(p))) {
        out.delete(name);
        changed = true;
      }
    }
  }
  return out;
}

/** The `ucp` envelope of one response: the negotiated capabilities relevant to its root, and the handlers. */
export function envelopeFor(root: Root, agent: AgentProfile, settings: AgenticSettings, docs: string): Envelope {
  const active = intersect(BUSINESS_CAPABILITIES, agent.capabilities);
  const capabilities: Envelope['capabilities'] = {};
  for (const [name, cap] of active) {
    if (name === root || parentsOf(cap).includes(root)) capabilities[name] = [{ version: cap.version }];
  }
  return { version: UCP_VERSION, capabilities, payment_handlers: root === 'dev.ucp.shopping.checkout' ? paymentHandlers(settings, docs) : {} };
}
