/**
 * A local fake of Twilio's REST API (2010-04-01) on 127.0.0.1: the Calls and Messages resources
 * (form-encoded, HTTP Basic with the account SID and auth token), recordings' media, and Twilio's
 * side of callbacks: a form POST signed with X-Twilio-Signature as Twilio signs it.
 */
import { createHmac } from 'node:crypto';

export const SID = 'AC00000000000000000000000000000001';
export const TOKEN = 'twilio-test-auth-token';
export const NUMBER = '+15550001111';
export const RECORDING = new Uint8Array([0x49, 0x44, 0x33, 1, 2, 3, 4, 5]);

export function fakeTwilio() {
  const calls: Record<string, string>[] = [];
  const messages: Record<string, string>[] = [];
  const authOk = (r: Request) => r.headers.get('authorization') === `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(r) {
      const path = new URL(r.url).pathname;
      if (!authOk(r)) return Response.json({ code: 20003, message: 'Authenticate', status: 401 }, { status: 401 });
      const base = `/2010-04-01/Accounts/${SID}`;
      if (r.method === 'POST' && path === `${base}/Calls.json`) {
        const form = Object.fromEntries(new URLSearchParams(await r.text()));
        if (!form.To || !form.From) return Response.json({ code: 21201, message: 'No To or From', status: 400 }, { status: 400 });
        calls.push(form);
        return Response.json(
          { sid: `CA${calls.length.toString().padStart(32, '0')}`, status: 'queued', to: form.To, from: form.From },
          { status: 201 },
        );
      }
      if (r.method === 'POST' && path === `${base}/Messages.json`) {
        const form = Object.fromEntries(new URLSearchParams(await r.text()));
        messages.push(form);
        return Response.json({ sid: `SM${messages.length.toString().padStart(32, '0')}`, status: 'queued' }, { status: 201 });
      }
      if (r.method === 'GET' && path.startsWith(`${base}/Recordings/`) && path.endsWith('.mp3'))
        return new Response(RECORDING, { headers: { 'Content-Type': 'audio/mpeg' } });
      return Response.json({ code: 20404, message: 'Not found', status: 404 }, { status: 404 });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    calls,
    messages,
    env: { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_PHONE_NUMBER: NUMBER, TWILIO_BASE_URL: url },
    recordingUrl: (sid: string) => `${url}/2010-04-01/Accounts/${SID}/Recordings/${sid}`,
    stop: () => server.stop(true),
  };
}

/** Twilio's signature of a callback: HMAC-SHA1 (auth token) of the URL and the sorted parameters, base64. */
export const sign = (url: string, params: Record<string, string>, token = TOKEN) =>
  createHmac('sha1', token)
    .update(
      url +
        Object.keys(params)
          .sort()
          .map((k) => k + params[k])
          .join(''),
    )
    .digest('base64');

/** Twilio calling back: a signed form POST to `publicUrl` (the URL it was given), delivered to the app in process. */
export async function callback(
  app: { handle(r: Request): Promise<Response> },
  publicUrl: string,
  params: Record<string, string>,
  signature = sign(publicUrl, params),
) {
  const res = await app.handle(
    new Request(publicUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      body: new URLSearchParams(params),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
