import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const THREAD_STATUSES = ['open', 'closed'] as const;
const Status = Type.Union(
  THREAD_STATUSES.map((s) => Type.Literal(s)),
  { description: 'open (new mail reopens a thread) or closed' },
);

export const Thread = Type.Object({
  object: Type.Literal('email_thread'),
  id: Uuid(),
  subject: Type.String(),
  customer_id: Type.Union([Uuid(), Type.Null()]),
  customer_email: Type.String(),
  status: Type.String(),
  message_count: Type.Integer(),
  last_message_at: Timestamp(),
  assigned_to: Type.Union([Uuid(), Type.Null()], { description: 'A member of the store (user id), or null.' }),
  reply_address: Type.Union([Type.String(), Type.Null()], { description: "The thread's own address (needs SVC_EMAIL_INBOUND_DOMAIN)." }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const ThreadMessage = Type.Object({
  object: Type.Literal('email_thread_message'),
  id: Uuid(),
  direction: Type.String({ description: 'inbound (from the customer) or outbound (a reply)' }),
  from: Type.String(),
  subject: Type.String(),
  text: Type.Union([Type.String(), Type.Null()]),
  html: Type.Union([Type.String(), Type.Null()]),
  message_id: Type.Union([Type.String(), Type.Null()], { description: 'The Message-ID header.' }),
  email_message_id: Type.Union([Uuid(), Type.Null()], { description: 'The email_message of a reply (its delivery status).' }),
  created_at: Timestamp(),
});
export const ThreadDetail = Type.Composite([Thread, Type.Object({ messages: Type.Array(ThreadMessage) })]);
export const ThreadList = ListOf(Thread);

export const ThreadQuery = Input({ ...ListParams, status: Type.Optional(Status) });
export const ThreadId = Input({ id: Uuid('Thread id') });
export const ThreadUpdate = Input({
  id: Uuid('Thread id'),
  status: Type.Optional(Status),
  assigned_to: Type.Optional(Type.Union([Uuid('A member of the store'), Type.Null()])),
});
export const AssignInput = Input({ id: Uuid('Thread id'), assigned_to: Type.Union([Uuid('A member of the store'), Type.Null()]) });
export const ReplyInput = Input({
  id: Uuid('Thread id'),
  text: Type.String({ minLength: 1, maxLength: 256 * 1024 }),
  html: Type.Optional(Type.String({ maxLength: 256 * 1024 })),
});
export const Received = Type.Object({ received: Type.Boolean(), outcome: Type.String(), thread_id: Type.Optional(Uuid()) });

export const InboxSettings = Type.Object({
  object: Type.Literal('email_inbox'),
  inbox_address: Type.Union([Type.String({ format: 'email' }), Type.Null()], {
    description:
      "The store's own inbox address: forward the shop's support mail (support@...) to it and each conversation becomes a thread here. Null while the server has no SVC_EMAIL_INBOUND_DOMAIN.",
  }),
  open_threads: Type.Integer({ description: 'Threads waiting for an answer (status open).' }),
});
export const NoInput = Input({});
