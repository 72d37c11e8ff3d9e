/**
 * Erasure reaches the copies made before it: stored webhook events and receivers' answers, the
 * tool-call audit log, idempotent replays and agents' conversation turns, in the store's rows only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { flushAudits } from '../../core/tools/executions';
import type { Harness } from '../../test/kit/setup';
import { deliverPending, deliveryIds, hooked, prepareWebhookTests, run, verifySpec, type Receiver } from '../../test/kit/webhooks';

const receivers: Receiver[] = [];
beforeAll(prepareWebhookTests, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const EVENTS = ['customer.created', 'customer.updated', 'customer.deleted'];
const tag = crypto.randomUUID().slice(0, 8);
const OLD_EMAIL = `Ottoline.Old.${tag}@Example.com`;
const EMAIL = `ottoline.${tag}@example.com`;
const PII = [OLD_EMAIL, EMAIL, 'Ottoline', 'Quixwell', 'Morrell', '2079460958', '7946 0958', '17 Gower Street', 'WC1E 6HA'];

const person = (email: string) => ({
  email,
  first_name: 'Ottoline',
  last_name: 'Morrell',
  phone: '+44 20 7946 0958',
  addresses: [{ name: 'Ottoline Morrell', line1: '17 Gower Street', city: 'London', postal_code: 'WC1E 6HA', country: 'GB' }],
});

/** Every copy the store's rows hold, by table, as text (JSON scanned as text). */
async function copies(h: Harness, storeId = h.store.id) {
  await flushAudits(); // reads' records are written a moment after their answers
  const texts = async (sql: string) => (await h.db.query<{ t: string | null }>(sql, [storeId])).map((r) => r.t ?? '').join('\n');
  return {
    events: await texts('SELECT body AS t FROM events WHERE store_id = $1'),
    deliveries: await texts('SELECT last_response AS t FROM webhook_deliveries WHERE store_id = $1'),
    attempts: await texts(
      'SELECT a.response AS t FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.store_id = $1',
    ),
    tool_executions: await texts(
      "SELECT input::text || ' ' || coalesce(output::text, '') || ' ' || coalesce(approval::text, '') AS t FROM tool_execution_log() WHERE store_id = $1",
    ),
    idempotency: await texts(
      `SELECT coalesce(response_text, '') || coalesce(response_body::text, '') AS t FROM idempotency_keys
       WHERE api_key_id IN (SELECT id FROM api_keys WHERE store_id = $1)`,
    ),
    agent_messages: await texts('SELECT content::text AS t FROM agent_messages WHERE store_id = $1'),
  };
}

const holding = (c: Record<string, string>, pii: string[]) =>
  Object.entries(c).flatMap(([table, text]) => pii.filter((p) => text.toLowerCase().includes(p.toLowerCase())).map((p) => `${table}: ${p}`));

/** An agent conversation whose turns hold the customer, as chat writes them (tool results are JSON text). */
async function conversation(h: Harness, customer: Record<string, unknown>) {
  const agent = crypto.randomUUID();
  const conv = crypto.randomUUID();
  const now = h.clock.now();
  await h.db.query(
    `INSERT INTO agents (id, store_id, name, model, system_prompt, created_at, updated_at) VALUES ($1, $2, 'Helper', 'openai/x', 'Hi', $3, $3)`,
    [agent, h.store.id, now],
  );
  await h.db.query('INSERT INTO agent_conversations (id, store_id, agent_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [
    conv,
    h.store.id,
    agent,
    now,
  ]);
  const turns = [
    { role: 'user', content: `Please find ${customer.email}, phone +44 20 7946 0958.` },
    { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(customer) },
    { role: 'user', content: 'And what is the weather in London?' },
  ];
  for (const t of turns)
    await h.db.query(
      `INSERT INTO agent_messages (id, store_id, conversation_id, role, content, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4::text::jsonb, $5)`,
      [h.store.id, conv, t.role, JSON.stringify(t), now],
    );
}

/**
 * One store's history with a customer: created over REST with an Idempotency-Key, its email changed
 * (also keyed), read and renamed by an MCP client (audit records), a conversation, and webhook
 * deliveries whose receiver echoed the payload and failed (so they are still pending).
 */
async function history(receivers: Receiver[]) {
  const { h, rx, ep } = await hooked(receivers, { body: { events: EVENTS }, respond: (r) => ({ status: 500, body: `echo ${r.raw}` }) });
  const created = await h.call('POST', '/customers', person(OLD_EMAIL), { 'Idempotency-Key': 'create-1' });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await h.call('PATCH', `/customers/${id}`, { email: EMAIL }, { 'Idempotency-Key': 'patch-1' })).status).toBe(200);
  const { client } = await mcpClient(h);
  try {
    const got: any = await client.callTool({ name: 'customers_get_customer', arguments: { id } });
    expect(got.isError).toBeFalsy();
    const renamed: any = await client.callTool({ name: 'customers_update_customer', arguments: { id, last_name: 'Quixwell' } });
    expect(renamed.structuredContent.last_name).toBe('Quixwell');
  } finally {
    await client.close();
  }
  await conversation(h, (await h.call('GET', `/customers/${id}`)).body);
  await deliverPending(h);
  return { h, rx, ep, id };
}

describe('erasing a customer scrubs the copies made before', () => {
  test("email, names, phone and address lines are gone from the store's events, audit log, replays and conversations; another store's stay", async () => {
    const a = await history(receivers);
    const b = await history(receivers);
    const before = holding(await copies(a.h), PII);
    for (const table of ['events', 'deliveries', 'attempts', 'tool_executions', 'idempotency', 'agent_messages'])
      expect(before.some((x) => x.startsWith(`${table}:`))).toBe(true);

    expect((await a.h.call('DELETE', `/customers/${a.id}`)).status).toBe(200);

    const after = await copies(a.h);
    expect(holding(after, PII)).toEqual([]);
    // Scrubbed in place, not dropped: the records are still there, marked.
    for (const table of ['events', 'attempts', 'tool_executions', 'idempotency', 'agent_messages'])
      expect(after[table as keyof typeof after]).toContain('[erased]');
    // The conversation's unrelated turn and the books' fields survive.
    expect(after.agent_messages).toContain('weather in London');
    expect(after.events).toContain(a.id);
    // The other store's identical-looking customer is untouched.
    expect(holding(await copies(b.h), PII).length).toBe(before.length);
    expect((await b.h.call('GET', `/customers/${b.id}`)).body).toMatchObject({ email: EMAIL, last_name: 'Quixwell' });
  }, 60_000);

  test('replaying an old Idempotency-Key answers the original status with the personal data erased, and creates nobody', async () => {
    const { h, id } = await history(receivers);
    await h.call('DELETE', `/customers/${id}`);
    const replay = await h.call('POST', '/customers', person(OLD_EMAIL), { 'Idempotency-Key': 'create-1' });
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ object: 'customer', id, email: '[erased]', first_name: '[erased]', phone: '[erased]' });
    expect(holding({ replay: JSON.stringify(replay.body) }, PII)).toEqual([]);
    const patched = await h.call('PATCH', `/customers/${id}`, { email: EMAIL }, { 'Idempotency-Key': 'patch-1' });
    expect(holding({ replay: JSON.stringify(patched.body) }, PII)).toEqual([]);
    expect((await h.call('GET', `/customers?email=${encodeURIComponent(OLD_EMAIL)}`)).body.data).toEqual([]);
  }, 60_000);

  test('a delivery still pending sends the scrubbed payload, signed over the bytes sent', async () => {
    const { h, rx, ep, id } = await history(receivers);
    await h.call('DELETE', `/customers/${id}`);
    rx.respond(() => 200);
    const seen = rx.received.length;
    for (const d of await deliveryIds(h, 'pending')) await run(h, d);
    const sent = rx.received.slice(seen);
    expect(sent.map((r) => r.body.type).sort()).toEqual(['customer.created', 'customer.deleted', 'customer.updated', 'customer.updated']);
    for (const r of sent) {
      expect(verifySpec(r, ep.signing_secret)).toBe(true);
      expect(holding({ sent: r.raw }, PII)).toEqual([]);
      expect(r.body.data.id).toBe(id);
    }
    expect(sent.find((r) => r.body.type === 'customer.created')!.body.data).toMatchObject({ email: '[erased]', addresses: [{ line1: '[erased]' }] });
  }, 60_000);

  test('erasing twice is harmless: the second answers 404 and changes nothing', async () => {
    const { h, id } = await history(receivers);
    expect((await h.call('DELETE', `/customers/${id}`)).status).toBe(200);
    const once = await copies(h);
    const again = await h.call('DELETE', `/customers/${id}`);
    expect(again.status).toBe(404);
    expect(await copies(h)).toEqual(once);
  }, 60_000);
});
