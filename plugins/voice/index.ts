import { Type } from '@sinclair/typebox';
import { actionFor, conflict, definePlugin, forbidden, invalid, noExample, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_voice.sql' with { type: 'text' };
import { TwilioConfig } from './config';
import { Acknowledged, Call, CallCreate, CallId, CallList, CallQuery, Callback, Recording } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { getCall, getRecording, listCalls, makeCall, recordingAudio, recordingCallback, statusCallback } = onFirstCall(() => import('./store'));

const action = actionFor(TwilioConfig);
const twilio = noExample('places a call with Twilio: voice.test.ts runs it against a local fake Twilio server');

const voice = definePlugin({
  name: 'voice',
  category: 'operations',
  description: 'Phone calls through Twilio: place a call that speaks a message (or your TwiML), optionally recorded; list calls; get a recording.',
  catalog: true,
  scopes: { read: ['phone', 'phone:read'], write: ['phone', 'phone:write'] },
  tables: ['voice_calls', 'voice_recordings'],
  config: TwilioConfig,
  // The store's own number (store settings' phone_number) is read through store's public.ts.
  requires: ['store'],
  errors: {
    invalid_signature: forbidden('The X-Twilio-Signature of this callback does not match it.'),
    provider_rejected: invalid('Twilio refused the request; its message says why.'),
    recording_unavailable: conflict('Twilio did not hand over the recording yet; it calls back again.'),
  },
  migrations: [{ id: 'voice/001_voice', sql: migration001 }],
  actions: {
    make_call: action({
      kind: 'write',
      description: 'Calls a phone number (E.164) and speaks `message` (or plays `twiml`); `record` keeps the recording.',
      input: CallCreate,
      output: Call,
      rest: { method: 'POST', path: '/voice/calls', status: 201 },
      errors: ['provider_not_configured', 'provider_rejected'],
      example: twilio,
      handler: makeCall,
    }),
    list_calls: action({
      kind: 'read',
      description: 'The store’s calls, oldest first (cursor pages), with Twilio’s status.',
      input: CallQuery,
      output: CallList,
      rest: { method: 'GET', path: '/voice/calls' },
      handler: listCalls,
    }),
    get_call: action({
      kind: 'read',
      description: 'One call: its number, status and whether it was recorded.',
      input: CallId,
      output: Call,
      rest: { method: 'GET', path: '/voice/calls/:call_id' },
      example: twilio,
      handler: (ctx, { call_id }) => getCall(ctx, call_id),
    }),
    get_recording: action({
      kind: 'read',
      description: 'The recording of a recorded call: {media_id, url, duration_seconds}.',
      input: CallId,
      output: Recording,
      rest: { method: 'GET', path: '/voice/calls/:call_id/recording' },
      example: twilio,
      handler: (ctx, { call_id }) => getRecording(ctx, call_id),
    }),
    get_recording_audio: action({
      kind: 'read',
      description: 'The recording’s audio.',
      input: CallId,
      output: Type.Object({}, { description: 'Audio (audio/mpeg).' }),
      rest: { method: 'GET', path: '/voice/calls/:call_id/recording/audio', response: 'raw', contentType: 'audio/mpeg' },
      example: twilio,
      handler: (ctx, { call_id }) => recordingAudio(ctx, call_id),
    }),
    call_status_callback: action({
      kind: 'write',
      description: 'Twilio’s status callback (signed with X-Twilio-Signature).',
      input: Callback,
      output: Acknowledged,
      rest: { method: 'POST', path: '/voice/calls/:call_id/status', auth: 'public', body: 'form' },
      errors: ['invalid_signature'],
      example: noExample('signed by Twilio: voice.test.ts signs it as Twilio does'),
      handler: (ctx, input) => statusCallback(ctx, input as Record<string, string>),
    }),
    recording_callback: action({
      kind: 'write',
      description: 'Twilio’s recording callback (signed): the recording is fetched into the store.',
      input: Callback,
      output: Acknowledged,
      rest: { method: 'POST', path: '/voice/calls/:call_id/recording', auth: 'public', body: 'form' },
      errors: ['invalid_signature', 'recording_unavailable'],
      example: noExample('signed by Twilio: voice.test.ts signs it as Twilio does'),
      handler: (ctx, input) => recordingCallback(ctx, input as Record<string, string>),
    }),
  },
});
export default voice;
