import { afterAll, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { callback, fakeTwilio, RECORDING, sign } from '../../test/kit/twilio';
import { mcpClient } from '../../test/kit/mcp';

const twilio = fakeTwilio();
afterAll(() => twilio.stop());
const PUBLIC = 'https://shop.example.com';
const env = { ...twilio.env, SVC_PUBLIC_URL: PUBLIC };

test('make_call posts TwiML to the Calls API with signed callbacks; status and recording callbacks update the call', async () => {
  const h = await setup({ env });
  const made = await h.call('POST', '/voice/calls', { to: '+15557654321', message: 'Your order <42> is ready', record: true });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ object: 'call', to: '+15557654321', from: '+15550001111', status: 'queued', record: true });
  const sent = twilio.calls.at(-1)!;
  expect(sent.Twiml).toBe('<Response><Say>Your order &#60;42&#62; is ready</Say></Response>');
  const statusUrl = `${PUBLIC}/v1/stores/${h.store.id}/voice/calls/${made.body.id}/status`;
  expect(sent).toMatchObject({ To: '+15557654321', From: '+15550001111', Record: 'true', StatusCallback: statusUrl });
  expect(sent.RecordingStatusCallback).toBe(`${PUBLIC}/v1/stores/${h.store.id}/voice/calls/${made.body.id}/recording`);

  // A bad signature is 403 and changes nothing.
  const params = { CallSid: made.body.twilio_sid, CallStatus: 'completed', CallDuration: '17' };
  const forged = await callback(h.app, statusUrl, params, sign(statusUrl, params, 'not-the-token'));
  expect(forged.status).toBe(403);
  expect(forged.body.error.code).toBe('invalid_signature');
  expect((await h.call('GET', '/voice/calls')).body.data[0].status).toBe('queued');
  expect((await callback(h.app, statusUrl, params)).status).toBe(200);
  expect((await h.call('GET', '/voice/calls')).body.data[0]).toMatchObject({ status: 'completed', duration_seconds: 17 });

  expect((await h.call('GET', `/voice/calls/${made.body.id}/recording`)).status).toBe(404);
  const rec = { RecordingSid: 'RE1', RecordingUrl: twilio.recordingUrl('RE1'), RecordingDuration: '15', RecordingStatus: 'completed' };
  expect((await callback(h.app, sent.RecordingStatusCallback!, rec)).status).toBe(200);
  const got = (await h.call('GET', `/voice/calls/${made.body.id}/recording`)).body;
  expect(got).toMatchObject({
    object: 'recording',
    duration_seconds: 15,
    url: `${PUBLIC}/v1/stores/${h.store.id}/voice/calls/${made.body.id}/recording/audio`,
  });
  const audio = await h.app.handle(
    new Request(`http://svc.test/v1/stores/${h.store.id}/voice/calls/${made.body.id}/recording/audio`, { headers: { 'x-api-key': h.key } }),
  );
  expect(new Uint8Array(await audio.arrayBuffer())).toEqual(RECORDING);
  // A recording URL off the account's API is never fetched.
  const offsite = { ...rec, RecordingUrl: 'http://169.254.169.254/latest' };
  expect((await callback(h.app, sent.RecordingStatusCallback!, offsite)).status).toBe(400);
});

test('without Twilio settings or SVC_PUBLIC_URL make_call is 400 provider_not_configured naming it; reads still work; another store’s call is 404', async () => {
  const none = await setup();
  const r = await none.call('POST', '/voice/calls', { to: '+15557654321', message: 'hi' });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'provider_not_configured' });
  expect(r.body.error.message).toContain('TWILIO_ACCOUNT_SID');
  expect((await none.call('GET', '/voice/calls')).status).toBe(200);
  const noPublic = await setup({ env: twilio.env });
  const p = await noPublic.call('POST', '/voice/calls', { to: '+15557654321', message: 'hi' });
  expect(p.body.error.message).toContain('SVC_PUBLIC_URL');

  const h = await setup({ env });
  const mine = (await h.call('POST', '/voice/calls', { to: '+15557654321', message: 'hi' })).body;
  const other = await setup({ env });
  expect((await other.call('GET', `/voice/calls/${mine.id}/recording`)).status).toBe(404);
  // A callback signed for this store's URL does not move another store's call.
  const url = `${PUBLIC}/v1/stores/${other.store.id}/voice/calls/${mine.id}/status`;
  expect((await callback(other.app, url, { CallStatus: 'completed' })).status).toBe(404);
});

test('each voice tool is one MCP call', async () => {
  const h = await setup({ env });
  const { client } = await mcpClient(h);
  const call = async (name: string, args: object) => ((await client.callTool({ name, arguments: args as any })) as any).structuredContent;
  try {
    const made = await call('voice', { action: 'make_call', to: '+15557654321', message: 'Hello' });
    expect(made.status).toBe('queued');
    const list = await call('voice_list_calls', {});
    expect(list.data.map((c: any) => c.id)).toEqual([made.id]);
    const rec = { RecordingSid: 'RE2', RecordingUrl: twilio.recordingUrl('RE2'), RecordingDuration: '3' };
    await callback(h.app, `${PUBLIC}/v1/stores/${h.store.id}/voice/calls/${made.id}/recording`, rec);
    expect(await call('voice_get_recording', { call_id: made.id })).toMatchObject({ duration_seconds: 3 });
  } finally {
    await client.close();
  }
});
