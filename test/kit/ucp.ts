/**
 * Test set-up shared by the UCP test files (imported by *.test.ts only): a store with UCP on at
 * its own hostname, products, a shipping zone, and the fake agent.
 */
import { product, setup, type Harness } from './setup';
import { fakeAgent, type FakeAgent } from './ucp-agent';
import { clearProfileCache } from '../../plugins/checkout/ucp/profiles';

export interface UcpWorld {
  h: Harness;
  agent: FakeAgent;
  host: string;
  /** Stops the agent and closes loopback egress again (each file's afterAll). */
  stop: () => Promise<void>;
  /** One request as the agent to this store's host. */
  ucp: (method: string, path: string, body?: unknown, o?: Parameters<FakeAgent['request']>[5]) => ReturnType<FakeAgent['request']>;
}

/** Turns UCP on for a store at `host` (its hostname) through the agentic and store settings APIs. */
export async function enableUcp(h: Harness, host: string, ucp: Record<string, unknown> = {}, payments: Record<string, unknown> = {}) {
  const s = await h.call('PATCH', '/settings', { hostnames: [host] });
  if (s.status !== 200) throw new Error(`hostnames: ${JSON.stringify(s.body)}`);
  const a = await h.call('PATCH', '/agentic', { ucp: { enabled: true, allowed_profiles: [], require_signatures: false, ...ucp }, payments });
  if (a.status !== 200) throw new Error(`agentic: ${JSON.stringify(a.body)}`);
}

/** The process's egress setting before any UCP world opened loopback: `stop()` puts it back, so later files see the guard as configured. */
const PRISTINE_ALLOW = process.env.SVC_EGRESS_ALLOW;
function restoreEgress() {
  if (PRISTINE_ALLOW === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = PRISTINE_ALLOW;
}

export async function ucpWorld(env: Record<string, string> = {}): Promise<UcpWorld> {
  process.env.SVC_EGRESS_ALLOW = [PRISTINE_ALLOW, '127.0.0.1'].filter(Boolean).join(',');
  clearProfileCache();
  const h = await setup({ env: { SVC_UCP_ALLOW_INSECURE_PROFILES: '1', ...env } });
  const agent = await fakeAgent();
  const host = `shop-${h.store.id.slice(0, 8)}.example.com`;
  await enableUcp(h, host);
  const stop = async () => {
    await agent.stop();
    restoreEgress();
  };
  return { h, agent, host, stop, ucp: (method, path, body, o) => agent.request(h.app, host, method, path, body, o) };
}

/** An active product with stock; its id is a UCP item id. */
export async function item(h: Harness, over: Record<string, unknown> = {}): Promise<string> {
  const r = await h.call('POST', '/products', product({ pricing_data: { retail: 25 }, stock_quantity: 10, ...over }));
  if (r.status !== 201) throw new Error(`product: ${JSON.stringify(r.body)}`);
  return r.body.id;
}

/** A shipping zone for the US: Standard 5.00 (3-5 days), Express 10.00 (1-2 days). */
export async function usZone(h: Harness) {
  const r = await h.call('POST', '/shipping/zones', {
    name: 'US',
    countries: ['US'],
    methods: [
      { name: 'Standard', rate_type: 'flat', amount: 5, min_days: 3, max_days: 5 },
      { name: 'Express', rate_type: 'flat', amount: 10, min_days: 1, max_days: 2 },
    ],
  });
  if (r.status !== 201) throw new Error(`zone: ${JSON.stringify(r.body)}`);
  return r.body;
}

export const ADDRESS = {
  first_name: 'Jane',
  last_name: 'Doe',
  street_address: '123 Main St',
  address_locality: 'Springfield',
  address_region: 'IL',
  postal_code: '62701',
  address_country: 'US',
};

export const BUYER = { email: 'jane@example.com', first_name: 'Jane', last_name: 'Doe' };

/** A create body for `items` ({id, quantity}). */
export const cart = (...items: { id: string; quantity?: number }[]) => ({
  line_items: items.map((i) => ({ item: { id: i.id }, quantity: i.quantity ?? 1 })),
});

/** A manual-handler payment, as complete_checkout takes it. */
export const MANUAL = { payment: { instruments: [{ id: 'instr_1', handler_id: 'manual', type: 'offline', selected: true }] } };
