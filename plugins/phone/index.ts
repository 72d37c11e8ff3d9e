import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, job, ListOf, ListParams, noExample, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_phone.sql' with { type: 'text' };
import migration002 from './migrations/002_message_order.sql' with { type: 'text' };
import migration003 from './migrations/003_sms_replies.sql' with { type: 'text' };
import { Conversation, getNumber, inboundSms, listConversations } from './store';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { replyJob } = onFirstCall(() => import('./reply'));

const phone = definePlugin({
  name: 'phone',
  category: 'operations',
  description: 'The store’s phone number (Twilio) and its SMS conversations with customers.',
  catalog: true,
  scopes: { read: ['phone', 'phone:read'], write: ['phone', 'phone:write'] },
  tables: ['phone_conversations', 'phone_messages'],
  // Twilio's client, settings and signature check are voice's (one client in one place); the
  // store's own number is store's setting; the sms agent and its chat loop are agents'.
  requires: ['voice', 'customers', 'store', 'agents'],
  migrations: [
    { id: 'phone/001_phone', sql: migration001 },
    { id: 'phone/002_message_order', sql: migration002 },
    { id: 'phone/003_sms_replies', sql: migration003 },
  ],
  jobs: {
    reply: job({
      description: 'The sms agent answers one inbound SMS; the answer is sent through Twilio’s Messages API and kept in the conversation.',
      input: Type.Object({ message_id: Type.String() }),
      // A model or Twilio failing now may answer later; a text waits no longer than that.
      retries: 3,
      handler: replyJob,
    }),
  },
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
      description:
        'The store’s phone number, the URL to set as its messaging webhook in Twilio, and the agent answering its SMS (null: none, no replies).',
      input: Input({}),
      output: Type.Object({
        object: Type.Literal('phone_number'),
        phone_number: Type.String({ description: 'The store’s own (store settings’ phone_number), else the instance’s TWILIO_PHONE_NUMBER.' }),
        sms_url: Type.String({ description: 'Set it as the number’s messaging webhook (“A message comes in”, HTTP POST) in Twilio.' }),
        sms_agent_id: Type.Union([Type.String(), Type.Null()], {
          description:
            'The agent that answers inbound SMS (an active agent with the sms channel; the default one among several). null: messages are kept, no reply is sent.',
        }),
      }),
      rest: { method: 'GET', path: '/phone/number' },
      errors: ['provider_not_configured'],
      example: noExample('reads the Twilio settings: phone.test.ts runs it with them'),
      handler: (ctx) => getNumber(ctx),
    }),
    receive_sms: action({
      kind: 'write',
      description: 'Twilio’s messaging webhook (signed with X-Twilio-Signature): an inbound SMS.',
      input: Type.Object({}, { additionalProperties: Type.String() }),
      output: Type.Object({}, { description: 'Empty TwiML (text/xml): the sms agent’s reply is sent through the Messages API.' }),
      rest: { method: 'POST', path: '/phone/sms/inbound', auth: 'public', body: 'form', response: 'raw', contentType: 'text/xml' },
      errors: ['invalid_signature'],
      example: noExample('signed by Twilio: phone.test.ts signs it as Twilio does'),
      handler: (ctx, input) => inboundSms(ctx, input as Record<string, string>),
    }),
  },
});
export default phone;
