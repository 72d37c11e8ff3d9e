import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../core/sdk';

/** SPEC 2.10's message event. */
export const MessageEvent = Type.Object({
  object: Type.Literal('email_event'),
  event: Type.String({ description: 'delivered, opened, clicked, bounced, complained or unsubscribed' }),
  timestamp: Timestamp(),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'smtp_response (delivered, bounced); user_agent, ip, machine (opened); url (clicked).',
  }),
});
export const EventList = Type.Object({ object: Type.Literal('list'), data: Type.Array(MessageEvent), has_more: Type.Boolean(), url: Type.String() });

/** The payload of the `email.*` webhook events. */
export const EmailEvent = Type.Object(
  {
    object: Type.Literal('email_event'),
    id: Type.String(),
    message_id: Type.String(),
    event: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
    timestamp: Timestamp(),
  },
  { description: 'An event of a sent message; `id` is the message id.' },
);
