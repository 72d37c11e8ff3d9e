import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const E164 = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', errorMessage: 'must be a phone number in E.164 form (+15551234567)' });

export const CallCreate = Input({
  to: E164,
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Spoken to the callee (TwiML <Say>).' })),
  twiml: Type.Optional(Type.String({ minLength: 1, maxLength: 4000, description: 'The TwiML of the call, instead of message.' })),
  record: Type.Optional(Type.Boolean({ description: 'Record the call; get_recording then answers it.' })),
});
export const CallQuery = Input({ ...ListParams });
export const CallId = Input({ call_id: Uuid('The call.') });
export const Call = Type.Object({
  object: Type.Literal('call'),
  id: Type.String(),
  twilio_sid: Type.Union([Type.String(), Type.Null()]),
  to: Type.String(),
  from: Type.String(),
  status: Type.String({ description: 'queued, ringing, in-progress, completed, busy, failed, no-answer, canceled (Twilio’s).' }),
  record: Type.Boolean(),
  duration_seconds: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const CallList = ListOf(Call);
export const Recording = Type.Object({
  object: Type.Literal('recording'),
  media_id: Type.String(),
  url: Type.String({ description: 'The audio, for this store’s credentials.' }),
  duration_seconds: Type.Union([Type.Integer(), Type.Null()]),
});
/** Twilio's callback: form fields, all strings; the path names the call. */
export const Callback = Type.Object({ call_id: Uuid() }, { additionalProperties: Type.String() });
export const Acknowledged = Type.Object({ received: Type.Boolean() });
