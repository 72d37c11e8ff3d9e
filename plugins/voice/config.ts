import { Type } from '@sinclair/typebox';

/** Twilio's own names, as OpenAI's are kept (issue 49); per instance. */
export const TwilioConfig = Type.Object({
  account_sid: Type.Optional(Type.String({ env: 'TWILIO_ACCOUNT_SID' })),
  auth_token: Type.Optional(Type.String({ env: 'TWILIO_AUTH_TOKEN' })),
  phone_number: Type.Optional(Type.String({ env: 'TWILIO_PHONE_NUMBER' })),
  base_url: Type.String({ env: 'TWILIO_BASE_URL', default: 'https://api.twilio.com' }),
});
