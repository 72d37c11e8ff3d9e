/**
 * One UCP checkout against a running svc (the compiled binary in .ci/smoke-binary): the fake agent
 * reads /.well-known/ucp, creates, updates and completes a signed checkout, verifies the signed
 * complete answer and the order webhook the worker sends. Usage:
 *   bun test/kit/ucp-smoke.ts <base url> <product id>
 * The server runs with SVC_UCP_ALLOW_INSECURE_PROFILES=1 and SVC_EGRESS_ALLOW=127.0.0.1 (the agent
 * is on loopback over http), UCP on for its only store.
 */
import { fakeAgent } from './ucp-agent';

const [base, item] = process.argv.slice(2);
const host = new URL(base).host;
const agent = await fakeAgent();
const fail = (what: string, detail: unknown) => {
  console.error(`UCP smoke: ${what}`, JSON.stringify(detail).slice(0, 1000));
  agent.stop();
  process.exit(1);
};
try {
  const profile = await agent.request(base, host, 'GET', '/.well-known/ucp', undefined, { sign: false });
  if (profile.status !== 200 || !profile.body.signing_keys?.length) fail('no business profile', profile.body);
  const CO = '/ucp/v1/checkout-sessions';
  const created = await agent.request(base, host, 'POST', CO, { line_items: [{ item: { id: item }, quantity: 1 }] });
  if (created.status !== 201) fail('create', created.body);
  const id = created.body.id;
  const updated = await agent.request(base, host, 'PUT', `${CO}/${id}`, {
    line_items: [{ item: { id: item }, quantity: 1 }],
    buyer: { email: 'smoke@example.com', first_name: 'Smoke' },
    fulfillment: {
      methods: [{ type: 'shipping', destinations: [{ street_address: '1 Main St', address_locality: 'Austin', address_country: 'US' }] }],
    },
  });
  if (updated.body.status !== 'ready_for_complete') fail('update', updated.body);
  const done = await agent.request(base, host, 'POST', `${CO}/${id}/complete`, {
    payment: { instruments: [{ id: 'i1', handler_id: 'manual', type: 'offline', selected: true }] },
  });
  if (done.body.status !== 'completed') fail('complete', done.body);
  await agent.verify({ status: done.status, headers: done.headers, body: done.raw }, profile.body.signing_keys);
  for (let i = 0; i < 60 && !agent.webhooks.length; i++) await Bun.sleep(500);
  const hook = agent.webhooks[0];
  if (!hook) fail('no order webhook within 30 s', {});
  const u = new URL(hook.url);
  await agent.verify({ method: 'POST', url: `https://${u.host}${u.pathname}`, headers: hook.headers, body: hook.body }, profile.body.signing_keys);
  if (JSON.parse(hook.body).id !== done.body.order.id) fail('webhook order', hook.body);
  console.log(`UCP smoke: order ${done.body.order.id} placed, complete answer and webhook verified`);
  agent.stop();
  process.exit(0);
} catch (err) {
  fail('error', String(err));
}
