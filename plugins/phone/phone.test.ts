import { afterAll, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { fakeTwilio, sign } from '../../test/kit/twilio';
import { mcpClient } from '../../test/kit/mcp';

const twilio = fakeTwilio();
afterAll(() => twilio.stop());
const PUBLIC = 'https://shop.example.com';
const env = { ...twilio.env, SVC_PUBLIC_URL: PUBLIC };

/** Twilio posting an inbound SMS to the store's messaging webhook (the URL get_number gave). */
async function sms(
  h: { app: { handle(r: Request): Promise<Response> } },
  url: string,
  params: Record<string, string>,
  signature = sign(url, params),
) {
  const res = await h.app.handle(
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(params),
    }),
  );
  return { status: res.status, text: await res.text() };
}

test('an inbound SMS, signature-checked, is matched to the customer by phone and kept as a conversation', async () => {
  const h = await setup({ env });
  const number = (await h.call('GET', '/phone/number')).body;
  expect(number).toEqual({
    object: 'phone_number',
    phone_number: '+15550001111',
    sms_url: `${PUBLIC}/v1/stores/${h.store.id}/phone/sms/inbound`,
    sms_agent_id: null,
  });
  const customer = (
    await h.call('POST', '/customers', { email: `sms-${crypto.randomUUID()}@example.com`, first_name: 'Ada', phone: '+1 555 123 4567' })
  ).body;
  const first = { MessageSid: 'SM1', From: '+15551234567', To: '+15550001111', Body: 'Where is my order?' };
  const forged = await sms(h, number.sms_url, first, sign(number.sms_url, first, 'wrong'));
  expect(forged.status).toBe(403);
  expect((await h.call('GET', '/phone/conversations')).body.data).toEqual([]);
  const ok = await sms(h, number.sms_url, first);
  expect(ok.status).toBe(200);
  expect(ok.text).toContain('<Response>');
  expect((await sms(h, number.sms_url, first)).status).toBe(200); // Twilio's retry: kept once
  await sms(h, number.sms_url, { ...first, MessageSid: 'SM2', Body: 'Thanks!' });
  await sms(h, number.sms_url, { MessageSid: 'SM3', From: '+15559999999', To: '+15550001111', Body: 'Hello?' });
  const convs = (await h.call('GET', '/phone/conversations')).body.data;
  expect(convs).toHaveLength(2);
  const known = convs.find((c: any) => c.phone === '+15551234567');
  expect(known.customer_id).toBe(customer.id);
  expect(known.messages.map((m: any) => m.body)).toEqual(['Where is my order?', 'Thanks!']);
  expect(convs.find((c: any) => c.phone === '+15559999999').customer_id).toBeNull();
  // Another store sees none of them.
  const other = await setup({ env });
  expect((await other.call('GET', '/phone/conversations')).body.data).toEqual([]);
});

test('without Twilio settings get_number is 400 provider_not_configured; conversations still list', async () => {
  const h = await setup();
  const r = await h.call('GET', '/phone/number');
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('provider_not_configured');
  expect((await h.call('GET', '/phone/conversations')).status).toBe(200);
});

test('each phone tool is one MCP call', async () => {
  const h = await setup({ env });
  const { client } = await mcpClient(h);
  try {
    const got: any = await client.callTool({ name: 'phone', arguments: { action: 'get_number' } });
    expect(got.structuredContent.phone_number).toBe('+15550001111');
    const url = got.structuredContent.sms_url;
    await sms(h, url, { MessageSid: 'SM9', From: '+15550000009', To: '+15550001111', Body: 'Hi' });
    const list: any = await client.callTool({ name: 'phone_list_conversations', arguments: {} });
    expect(list.structuredContent.data[0].messages[0].body).toBe('Hi');
  } finally {
    await client.close();
  }
});
