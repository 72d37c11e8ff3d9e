import type { Static } from '@sinclair/typebox';
import { errors, fail, listPage, rowOr404, stamps, type Ctx, type Row } from '../../core/sdk';
import type { TwilioConfig } from './config';
import { basic, checkSignature, storeNumber, twilioOf, twilioPost, type Twilio } from './public';
import type { CallCreate, CallQuery } from './schemas';

type VCtx = Ctx<Static<typeof TwilioConfig>>;

const toCall = (r: Row) => ({
  object: 'call' as const,
  id: r.id,
  twilio_sid: r.twilio_sid,
  to: r.to_number,
  from: r.from_number,
  status: r.status,
  record: r.record,
  duration_seconds: r.duration_seconds,
  ...stamps(r),
});

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const callbackUrl = (t: { publicUrl: string }, storeId: string, callId: string, what: 'status' | 'recording') =>
  `${t.publicUrl}/v1/stores/${storeId}/voice/calls/${callId}/${what}`;

/** make_call: the call is recorded first, then placed with Twilio with its signed callbacks' URLs. */
export async function makeCall(ctx: VCtx, input: Static<typeof CallCreate>) {
  if (!input.message === !input.twiml) throw errors.validation('Give one of message or twiml.', input.message ? 'twiml' : 'message');
  const t = twilioOf(ctx, ctx.config);
  const id = crypto.randomUUID();
  const now = ctx.clock.now();
  const from = await storeNumber(ctx, t);
  const twiml = input.twiml ?? `<Response><Say>${escapeXml(input.message!)}</Say></Response>`;
  const form: Record<string, string> = {
    To: input.to,
    From: from,
    Twiml: twiml,
    StatusCallback: callbackUrl(t, ctx.store.id, id, 'status'),
  };
  if (input.record) Object.assign(form, { Record: 'true', RecordingStatusCallback: callbackUrl(t, ctx.store.id, id, 'recording') });
  const placed = await twilioPost(t, 'Calls.json', form);
  const [r] = await ctx.db.query(
    `INSERT INTO voice_calls (id, store_id, twilio_sid, to_number, from_number, status, record, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
    [id, ctx.store.id, placed.sid ?? null, input.to, from, placed.status ?? 'queued', input.record ?? false, now],
  );
  return toCall(r);
}

export const listCalls = (ctx: Ctx, input: Static<typeof CallQuery>) =>
  listPage(ctx, { table: 'voice_calls', path: '/voice/calls', input }, (rows) => rows.map(toCall));

const callRow = (ctx: Ctx, id: string, param = 'call_id') =>
  rowOr404(ctx.db, { table: 'voice_calls', storeId: ctx.store.id, id, noun: 'call', param });

/** One call of the store (404 naming call_id otherwise): also the owner the callbacks' path is checked against first. */
export const getCall = async (ctx: Ctx, callId: string) => toCall(await callRow(ctx, callId));

/** The form fields of a callback (everything but the path's id), checked against X-Twilio-Signature over the public URL. */
function verified(ctx: VCtx, t: Twilio & { publicUrl: string }, input: Record<string, string>, what: 'status' | 'recording') {
  const { call_id, ...params } = input;
  checkSignature(t.auth_token, callbackUrl(t, ctx.store.id, call_id!, what), params, ctx.http?.request.headers.get('x-twilio-signature') ?? null);
  return params;
}

/** Twilio's status callback: the call's status and duration. */
export async function statusCallback(ctx: VCtx, input: Record<string, string>) {
  const t = twilioOf(ctx, ctx.config);
  const p = verified(ctx, t, input, 'status');
  await callRow(ctx, input.call_id!);
  await ctx.db.query(
    `UPDATE voice_calls SET status = coalesce($3, status), duration_seconds = coalesce($4, duration_seconds), updated_at = $5 WHERE store_id = $1 AND id = $2`,
    [ctx.store.id, input.call_id, p.CallStatus ?? null, p.CallDuration ? Number.parseInt(p.CallDuration, 10) : null, ctx.clock.now()],
  );
  return { received: true };
}

/**
 * Twilio's recording callback: the recording is fetched with the account's credentials, only from
 * the account's own API (TWILIO_BASE_URL), never from another host a callback names.
 */
export async function recordingCallback(ctx: VCtx, input: Record<string, string>) {
  const t = twilioOf(ctx, ctx.config);
  const p = verified(ctx, t, input, 'recording');
  await callRow(ctx, input.call_id!);
  const url = p.RecordingUrl ?? '';
  if (!url.startsWith(`${t.base_url}/`)) throw errors.validation('RecordingUrl is not on the Twilio account’s API.', 'RecordingUrl');
  const r = await fetch(`${url}.mp3`, { headers: { Authorization: basic(t) } });
  if (!r.ok) throw fail('recording_unavailable', `Twilio did not answer the recording (${r.status}); it calls back again.`);
  const bytes = new Uint8Array(await r.arrayBuffer());
  await ctx.db.query(
    `INSERT INTO voice_recordings (id, store_id, call_id, twilio_sid, content_type, bytes, duration_seconds, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7) ON CONFLICT (call_id) DO NOTHING`,
    [
      ctx.store.id,
      input.call_id,
      p.RecordingSid ?? '',
      r.headers.get('content-type') ?? 'audio/mpeg',
      bytes,
      p.RecordingDuration ? Number(p.RecordingDuration) : null,
      ctx.clock.now(),
    ],
  );
  return { received: true };
}

export async function getRecording(ctx: Ctx, callId: string) {
  await callRow(ctx, callId);
  const [r] = await ctx.db.query('SELECT id, duration_seconds FROM voice_recordings WHERE store_id = $1 AND call_id = $2', [ctx.store.id, callId]);
  if (!r) throw errors.notFound(`recording of call '${callId}'`, 'call_id');
  return {
    object: 'recording' as const,
    media_id: r.id,
    url: `${ctx.origin}${ctx.storePath}/voice/calls/${callId}/recording/audio`,
    duration_seconds: r.duration_seconds,
  };
}

export async function recordingAudio(ctx: Ctx, callId: string) {
  await callRow(ctx, callId);
  const [r] = await ctx.db.query('SELECT content_type, bytes FROM voice_recordings WHERE store_id = $1 AND call_id = $2', [ctx.store.id, callId]);
  if (!r) throw errors.notFound(`recording of call '${callId}'`, 'call_id');
  return new Response(r.bytes, { headers: { 'Content-Type': r.content_type } });
}
