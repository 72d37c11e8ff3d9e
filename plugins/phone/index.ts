import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, ListOf, ListParams, noExample } from '../../core/sdk';
import migration001 from './migrations/001_phone.sql' with { type: 'text' };
import migration002 from './migrations/002_message_order.sql' with { type: 'text' };
import { Conversation, getNumber, inboundSms, listConversations } from './store';

const phone = definePlugin({
  name: 'phone',
  category: 'operations',
  description: 'The store’s phone number (Twilio) and its SMS conversations with customers.',
  catalog: true,
  scopes: { read: ['phone', 'phone:read'], write: ['phone', 'phone:write'] },
  tables: ['phone_conversations', 'phone_messages'],
  // Twilio's client, settings and signature check are voice's (one client in one place).
  requires: ['voice', 'customers'],
  migrations: [
    { id: 'phone/001_phone', sql: migration001 },
    { id: 'phone/002_message_order', sql: migration002 },
  ],
  actions: {
    list_conversations: action({
      kind: 'read',
      description: 'SMS conversations, one per outside number, with the matched customer and the last 50 messages.',
      input: Input({ ...ListParams }),
      output: ListOf(Conversation),
      rest: { method: 'GET', path: '/phone/conversations' },
      handler: listConversations,
    }),
    get_number: action({
      kind: 'read',
      description: 'The store’s phone number and the URL to set as its messaging webhook in Twilio.',
      input: Input({}),
      output: Type.Object({ object: Type.Literal('phone_number'), phone_number: Type.String(), sms_url: Type.String() }),
      rest: { method: 'GET', path: '/phone/number' },
      errors: ['provider_not_configured'],
      example: noExample('reads the Twilio settings: phone.test.ts runs it with them'),
      handler: async (ctx) => getNumber(ctx),
    }),
    receive_sms: action({
      kind: 'write',
      description: 'Twilio’s messaging webhook (signed with X-Twilio-Signature): an inbound SMS.',
      input: Type.Object({}, { additionalProperties: Type.String() }),
      output: Type.Object({}, { description: 'Empty TwiML (text/xml).' }),
      rest: { method: 'POST', path: '/phone/sms/inbound', auth: 'public', body: 'form', response: 'raw', contentType: 'text/xml' },
      errors: ['invalid_signature'],
      example: noExample('signed by Twilio: phone.test.ts signs it as Twilio does'),
      handler: (ctx, input) => inboundSms(ctx, input as Record<string, string>),
    }),
  },
});
export default phone;
