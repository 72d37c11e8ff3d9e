import { afterAll, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { fakeTwilio, sign } from '../../test/kit/twilio';
import { fakeServer, openai } from '../../test/kit/fake-models';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';

const twilio = fakeTwilio();
const stops: (() => void)[] = [twilio.stop];
afterAll(() => stops.forEach((s) => s()));
const PUBLIC = 'https://shop.example.com';

/** Twilio and a scripted model: each test its own model, so its replies are in order. */
function envWith(replies: ReturnType<typeof openai.text>[]) {
  const model = fakeServer(replies);
  stops.push(model.stop);
  return { model, env: { ...twilio.env, SVC_PUBLIC_URL: PUBLIC, OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'sk-test' } };
}

type H = Awaited<ReturnType<typeof setup>>;
/** Twilio posting an inbound SMS to the store's messaging webhook, signed as Twilio signs it. */
async function sms(h: H, params: Record<string, string>) {
  const url = `${PUBLIC}/v1/stores/${h.store.id}/phone/sms/inbound`;
  const res = await h.app.handle(
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': sign(url, params) },
      body: new URLSearchParams(params),
    }),
  );
  return { status: res.status, text: await res.text() };
}

const FROM = '+15551234567';

test('the store’s own number (PATCH /settings phone_number, E.164) is get_number’s and make_call’s From', async () => {
  const { env } = envWith([]);
  const h = await setup({ env });
  const bad = await h.call('PATCH', '/settings', { phone_number: '555-0100' });
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('phone_number');
  const set = await h.call('PATCH', '/settings', { phone_number: '+15550002222' });
  expect(set.body.settings.phone_number).toBe('+15550002222');
  expect((await h.call('GET', '/phone/number')).body.phone_number).toBe('+15550002222');
  const call = await h.call('POST', '/voice/calls', { to: '+15557654321', message: 'Hello' });
  expect(call.body.from).toBe('+15550002222');
  expect(twilio.calls.at(-1)!.From).toBe('+15550002222');
  // null goes back to the instance's TWILIO_PHONE_NUMBER; another store never had it.
  await h.call('PATCH', '/settings', { phone_number: null });
  expect((await h.call('GET', '/phone/number')).body.phone_number).toBe('+15550001111');
  expect((await (await setup({ env })).call('GET', '/phone/number')).body.phone_number).toBe('+15550001111');
});

test('an sms agent answers an inbound SMS once, through the Messages API from the store’s number, kept in the conversation', async () => {
  const { env, model } = envWith([openai.text('Your order ', 'shipped today.'), openai.text('You are welcome!')]);
  const h = await setup({ env });
  await h.call('PATCH', '/settings', { phone_number: '+15550002222' });
  const sent = twilio.messages.length;

  // No sms agent: the message is kept, nothing is queued or sent; get_number says so.
  expect((await h.call('GET', '/phone/number')).body.sms_agent_id).toBeNull();
  await sms(h, { MessageSid: 'SMa', From: FROM, To: '+15550002222', Body: 'Hello?' });
  expect(await takeQueued(h, 'phone.reply')).toEqual([]);

  const agent = (await h.call('POST', '/agents', { name: 'Texts', model: 'openai/gpt-test', system_prompt: 'Answer briefly.', channels: ['sms'] }))
    .body;
  expect(agent.channels).toEqual(['sms']);
  expect((await h.call('GET', '/phone/number')).body.sms_agent_id).toBe(agent.id);

  const first = { MessageSid: 'SMb', From: FROM, To: '+15550002222', Body: 'Where is my order?' };
  const ok = await sms(h, first);
  expect(ok).toEqual({ status: 200, text: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' });
  expect(model.requests).toHaveLength(0); // the webhook answered before the model was asked
  expect((await sms(h, first)).status).toBe(200); // Twilio retrying the same MessageSid
  const jobs = await takeQueued(h, 'phone.reply');
  expect(jobs).toHaveLength(1);
  await runJob(h, 'phone.reply', jobs);
  await runJob(h, 'phone.reply', jobs); // the worker died before pg-boss heard: run again
  expect(model.requests).toHaveLength(1);
  expect(twilio.messages.slice(sent)).toEqual([{ To: FROM, From: '+15550002222', Body: 'Your order shipped today.' }]);

  // The next text continues the same agent conversation (the model sees the earlier turns).
  await sms(h, { ...first, MessageSid: 'SMc', Body: 'Thanks' });
  await runJob(h, 'phone.reply', await takeQueued(h, 'phone.reply'));
  const seen = JSON.stringify(model.requests[1].body.messages);
  expect(seen).toContain('Where is my order?');
  expect(seen).toContain('Your order shipped today.');
  expect(twilio.messages.length - sent).toBe(2);

  const conv = (await h.call('GET', '/phone/conversations')).body.data[0];
  expect(conv.messages.map((m: any) => [m.direction, m.body])).toEqual([
    ['inbound', 'Hello?'],
    ['inbound', 'Where is my order?'],
    ['outbound', 'Your order shipped today.'],
    ['inbound', 'Thanks'],
    ['outbound', 'You are welcome!'],
  ]);
  // The agent's side: one conversation, not readable as an API conversation of another caller.
  expect((await h.call('GET', `/agents/${agent.id}/conversations`)).body.data).toHaveLength(1);

  // A paused agent answers nothing: the message is kept, nothing queued.
  await h.call('PATCH', `/agents/${agent.id}`, { status: 'paused' });
  await sms(h, { ...first, MessageSid: 'SMd', Body: 'Anyone?' });
  expect(await takeQueued(h, 'phone.reply')).toEqual([]);
  expect(twilio.messages.length - sent).toBe(2);
});

test('over MCP: the store’s number is set with store.update_settings and get_number names the sms agent', async () => {
  const { env } = envWith([]);
  const h = await setup({ env });
  const agent = (await h.call('POST', '/agents', { name: 'Texts', model: 'openai/gpt-test', channels: ['api', 'sms'] })).body;
  const { client } = await mcpClient(h);
  try {
    await client.callTool({ name: 'store', arguments: { action: 'update_settings', phone_number: '+15550003333' } });
    const got: any = await client.callTool({ name: 'phone', arguments: { action: 'get_number' } });
    expect(got.structuredContent).toMatchObject({ phone_number: '+15550003333', sms_agent_id: agent.id });
  } finally {
    await client.close();
  }
});
